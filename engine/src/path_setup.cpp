#include "path_setup.hpp"

#include "mcprice/kernels/trade_key.hpp"

#include <algorithm>
#include <cmath>

namespace mcprice::detail {

std::vector<double> fixing_times_of(const trade& t, std::int64_t default_steps)
{
  if (!t.fixing_times.empty()) return t.fixing_times;
  std::int64_t const n = t.fixings.value_or(t.steps.value_or(default_steps));
  std::vector<double> times;
  for (std::int64_t i = 1; i <= n; ++i) times.push_back(t.maturity * static_cast<double>(i) / static_cast<double>(n));
  return times;
}

path_job make_path_job(const trade& t, const market_data& market, const engine_options& opt)
{
  const asset& a = market.assets()[*market.find(t.underlyings.front())];
  double const T = t.maturity;
  bool const barrier_like = t.product == product_kind::barrier || t.product == product_kind::touch ||
                            t.product == product_kind::lookback;
  bool const continuous = barrier_like && t.monitoring == monitoring_kind::continuous;

  std::vector<double> fixings;
  if (!barrier_like || !continuous) fixings = fixing_times_of(t, opt.steps);
  bool const spot_fixing = !fixings.empty() && fixings.front() == 0.0;

  // Grid: the positive fixing times, the uniform steps of continuous monitoring, and maturity.
  std::vector<double> grid;
  for (double f : fixings) {
    if (f > 0.0) grid.push_back(f);
  }
  if (continuous) {
    std::int64_t const n = t.steps.value_or(opt.steps);
    for (std::int64_t i = 1; i <= n; ++i) grid.push_back(T * static_cast<double>(i) / static_cast<double>(n));
  }
  grid.push_back(T);
  std::sort(grid.begin(), grid.end());
  grid.erase(std::unique(grid.begin(), grid.end(), [](double x, double y) { return std::abs(x - y) <= 1e-12; }),
             grid.end());

  auto const log_forward = [&](double time) {
    return (market.discount().zero_rate(time) - a.dividend.zero_rate(time)) * time;
  };
  double const df_T = market.discount().discount(T);
  path_job job{};
  double t_prev = 0.0;
  for (double ti : grid) {
    double const dw = a.vol.total_variance(ti) - a.vol.total_variance(t_prev);
    path_step s{};
    s.drift = static_cast<float>(log_forward(ti) - log_forward(t_prev) - 0.5 * dw);
    s.vol = static_cast<float>(std::sqrt(std::max(0.0, dw)));
    s.hit_value = static_cast<float>(market.discount().discount(ti) / df_T);
    s.fixing = std::any_of(fixings.begin(), fixings.end(), [&](double f) { return std::abs(f - ti) <= 1e-12; }) ? 1 : 0;
    job.steps.push_back(s);
    t_prev = ti;
  }

  path_gbm_trade& k = job.kernel;
  k.key = rng::trade_key(opt.seed, t.id);
  std::int64_t const requested = t.paths.value_or(opt.paths);
  k.antithetic = opt.antithetic ? 1 : 0;
  k.samples = opt.antithetic ? (requested + 1) / 2 : requested;
  job.paths = opt.antithetic ? 2 * k.samples : k.samples;
  k.steps = static_cast<std::int32_t>(job.steps.size());
  k.spot = static_cast<float>(a.spot);
  k.strike = static_cast<float>(t.strike.value_or(0.0));
  k.log_barrier = t.barrier ? static_cast<float>(std::log(*t.barrier / a.spot)) : 0.0F;
  k.rebate = static_cast<float>(t.product == product_kind::touch ? t.payout : t.rebate);
  k.product = t.product == product_kind::asian     ? path_product::asian
              : t.product == product_kind::barrier ? path_product::barrier
              : t.product == product_kind::touch   ? path_product::touch
                                                   : path_product::lookback;
  k.call = (t.type == option_type::call || t.type == option_type::one_touch) ? 1 : 0;
  if (t.barrier_type) {
    barrier_kind const b = *t.barrier_type;
    k.up = (b == barrier_kind::up || b == barrier_kind::up_in || b == barrier_kind::up_out) ? 1 : 0;
    k.knock_in = (b == barrier_kind::up_in || b == barrier_kind::down_in) ? 1 : 0;
  }
  k.continuous = continuous ? 1 : 0;
  // Knock-out rebates are paid at the hit; touches pay where pay_at says.
  k.pay_at_hit = t.product == product_kind::barrier ? 1 : (t.pay_at == payment_time::hit ? 1 : 0);
  k.geometric = t.averaging == averaging_kind::geometric ? 1 : 0;
  k.floating = t.strike_type == strike_kind::floating ? 1 : 0;
  k.spot_fixing = spot_fixing ? 1 : 0;
  k.fixings = static_cast<std::int32_t>(fixings.size());
  if (t.product == product_kind::lookback) {
    bool const floating = t.strike_type == strike_kind::floating;
    k.track_max = (floating != (t.type == option_type::call)) ? 1 : 0;  // floating put or fixed call
    k.log_extreme = t.running_extreme ? static_cast<float>(std::log(*t.running_extreme / a.spot)) : 0.0F;
  }
  job.scale = df_T * t.notional;
  return job;
}

}  // namespace mcprice::detail
