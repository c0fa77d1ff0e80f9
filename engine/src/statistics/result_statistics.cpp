#include "statistics/result_statistics.hpp"

#include "mcprice/kernels/products/outcome_tally.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace mcprice::detail {

trade_result make_result(const std::string& id, const moments& m, std::int64_t samples, std::int64_t paths,
                         double scale)
{
  constexpr double z95 = 1.959963984540054;  // two-sided 95% normal quantile
  auto const n = static_cast<double>(samples);
  double const mean = m.sum / n;
  // Unbiased sample variance; clamped at 0 against rounding when all payoffs are equal.
  double const var = std::max(0.0, (m.sum_sq - m.sum * mean) / (n - 1.0));
  trade_result r;
  r.id = id;
  r.status = trade_status::ok;
  r.paths = paths;
  r.price = scale * mean;
  r.std_error = std::abs(scale) * std::sqrt(var / n);
  r.ci_low = r.price - z95 * r.std_error;
  r.ci_high = r.price + z95 * r.std_error;
  return r;
}

redemption_statistics redemption_of(const std::vector<unsigned long long>& tally, const std::vector<double>& times)
{
  std::size_t const rows = times.size();
  if (rows == 0 || tally.size() != static_cast<std::size_t>(tally_slots_of(static_cast<int>(rows)))) {
    throw std::logic_error("redemption_of: " + std::to_string(tally.size()) + " counters for " +
                           std::to_string(rows) + " observations");
  }
  // Slot 1 + rows counts the paths never called; nothing is called at the last observation
  // (maturity), so those are its redemptions.
  auto const count = [&](std::size_t j) {
    auto c = static_cast<double>(tally[tally_first_redemption_slot + j]);
    return j + 1 == rows ? c + static_cast<double>(tally[tally_first_redemption_slot + rows]) : c;
  };
  double paths = 0.0;
  for (std::size_t j = 0; j < rows; ++j) paths += count(j);
  redemption_statistics r;
  r.times = times;
  if (paths == 0.0) return r;
  for (std::size_t j = 0; j < rows; ++j) {
    r.probabilities.push_back(count(j) / paths);
    r.expected_life += r.probabilities.back() * times[j];
  }
  r.knock_in_probability = static_cast<double>(tally[tally_knock_in_slot]) * tally_unit / paths;
  return r;
}

}  // namespace mcprice::detail
