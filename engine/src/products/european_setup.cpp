#include "products/european_setup.hpp"

#include "mcprice/kernels/greeks/european_greeks.hpp"
#include "products/stream_keys.hpp"

#include <cmath>

namespace mcprice::detail {
namespace {

terminal_payoff payoff_of(const trade& t)
{
  bool const call = t.type == option_type::call;
  if (t.product == product_kind::vanilla) return call ? terminal_payoff::call : terminal_payoff::put;
  if (t.digital == digital_kind::cash) {
    return call ? terminal_payoff::cash_digital_call : terminal_payoff::cash_digital_put;
  }
  return call ? terminal_payoff::asset_digital_call : terminal_payoff::asset_digital_put;
}

}  // namespace

european_job make_european_job(const trade& t, const asset& a, const market_data& market, const engine_options& opt)
{
  double const T = t.maturity;
  double const df = market.discount().discount(T);
  double const w = a.vol.total_variance(T);
  // ln(F/S0) = (r(T) - q(T)) T, from the zero rates directly rather than a ratio of discounts.
  double const log_fwd = market.log_forward(a, T);

  european_job job{};
  job.kernel.key = stream_key(t, opt, 0, 0);
  std::int64_t const requested = t.paths.value_or(opt.paths);
  job.kernel.antithetic = opt.antithetic ? 1 : 0;
  job.kernel.samples = opt.antithetic ? (requested + 1) / 2 : requested;
  job.paths = opt.antithetic ? 2 * job.kernel.samples : job.kernel.samples;
  job.kernel.median = static_cast<float>(a.spot * std::exp(log_fwd - 0.5 * w));
  job.kernel.log2_stdev = static_cast<float>(std::sqrt(w) / std::log(2.0));
  job.kernel.payoff = {payoff_of(t), static_cast<float>(t.strike.value_or(0.0)), 1.0F};
  job.scale = df * t.notional;
  // a exactly as the kernel recomputes it from the record (european_greek_lane).
  job.greeks = {a.spot,
                T,
                -std::log(df) / T,
                log_fwd / T,
                static_cast<double>(job.kernel.log2_stdev * 0.69314718F),
                pathwise_greeks(job.kernel.payoff.kind)};
  if (t.product == product_kind::digital && t.digital == digital_kind::cash) job.scale *= t.payout;
  return job;
}

}  // namespace mcprice::detail
