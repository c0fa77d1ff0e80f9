#include "mcprice/memory/latency_ring.hpp"

#include <algorithm>

namespace mcprice {

void latency_ring::record(double us)
{
  if (samples_.size() < capacity) samples_.push_back(us);
  else samples_[next_++ % capacity] = us;
}

double percentile(std::vector<double> v, double q)
{
  if (v.empty()) return 0.0;
  auto const k = static_cast<std::size_t>(q * static_cast<double>(v.size() - 1));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return v[k];
}

double latency_ring::percentile(double q) const { return mcprice::percentile(samples_, q); }

}  // namespace mcprice
