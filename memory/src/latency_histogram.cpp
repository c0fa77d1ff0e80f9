#include "mcprice/memory/latency_histogram.hpp"

#include <algorithm>
#include <cmath>

namespace mcprice {

double percentile(std::vector<double> v, double q)
{
  if (v.empty()) return 0.0;
  auto const k = static_cast<std::size_t>(q * static_cast<double>(v.size() - 1));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return v[k];
}

void latency_histogram::record(double us) noexcept
{
  std::size_t bin = 0;
  if (us >= lowest_us) {
    double const position = std::log2(us / lowest_us) * bins_per_doubling;
    bin = 1 + static_cast<std::size_t>(std::min(position, static_cast<double>(counts_.size() - 2)));
  }
  ++counts_[bin];
  ++total_;
}

double latency_histogram::percentile(double q) const noexcept
{
  if (total_ == 0) return 0.0;
  auto const rank = static_cast<std::uint64_t>(std::clamp(q, 0.0, 1.0) * static_cast<double>(total_ - 1));
  std::uint64_t seen = 0;
  std::size_t bin = 0;
  for (; bin < counts_.size(); ++bin) {
    seen += counts_[bin];
    if (seen > rank) break;
  }
  if (bin == 0) return lowest_us / 2.0;
  return lowest_us * std::exp2((static_cast<double>(bin) - 0.5) / bins_per_doubling);
}

}  // namespace mcprice
