#include "statistics/result_statistics.hpp"

#include <algorithm>
#include <cmath>

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

}  // namespace mcprice::detail
