#include "products/local_vol_setup.hpp"

#include "mcprice/kernels/greeks/local_vol_greeks.hpp"
#include "products/path_setup.hpp"

#include <algorithm>
#include <cmath>
#include <type_traits>

namespace mcprice::detail {
template <typename Real>
basic_local_vol_step<Real> make_local_vol_step(const asset& a, const market_data& market, double t0, double t1,
                                               double df_T, bool fixing)
{
  basic_local_vol_step<Real> s{};
  s.log_forward = static_cast<Real>(market.log_forward(a, t1) - market.log_forward(a, t0));
  s.dt = static_cast<Real>(t1 - t0);
  s.root_dt = static_cast<Real>(std::sqrt(t1 - t0));
  s.hit_value = static_cast<Real>(market.discount().discount(t1) / df_T);
  if (a.model == model_kind::local_vol) {
    local_vol_time<double> const at = local_vol_time_of(axes_of<double>(a.local_vol), t0);
    s.weight = static_cast<Real>(at.weight);
    s.row = at.row;
  } else {
    double const dw = a.vol.total_variance(t1) - a.vol.total_variance(t0);
    s.vol = static_cast<Real>(std::sqrt(std::max(0.0, dw) / (t1 - t0)));
  }
  s.fixing = fixing ? 1 : 0;
  return s;
}
template basic_local_vol_step<float> make_local_vol_step<float>(const asset&, const market_data&, double, double,
                                                                double, bool);
template basic_local_vol_step<double> make_local_vol_step<double>(const asset&, const market_data&, double, double,
                                                                  double, bool);

template <typename Real>
basic_local_vol_job<Real> make_local_vol_job(const trade& t, const asset& a, const market_data& market,
                                             const engine_options& opt)
{
  path_grid const g = make_path_grid(t, opt, true);
  double const df_T = market.discount().discount(t.maturity);
  basic_local_vol_job<Real> job{};
  double t_prev = 0.0;
  for (std::size_t i = 0; i < g.times.size(); ++i) {
    job.steps.push_back(make_local_vol_step<Real>(a, market, t_prev, g.times[i], df_T, g.is_fixing(i)));
    t_prev = g.times[i];
  }
  mark_steps(g, job.steps);
  bool const greeks = opt.greeks && !a.local_vol_bumped.empty();
  if (greeks) {
    // Theta's scenarios: the first step shortened and lengthened by the kernel's roll (the same
    // Real), its discount ratio held (local_vol_greeks.hpp).
    double const t1 = g.times.front();
    double const eps = scenario_roll(static_cast<Real>(t1));
    for (double const end : {t1 - eps, t1 + eps}) {
      basic_local_vol_step<Real> s = make_local_vol_step<Real>(a, market, 0.0, end, df_T, g.is_fixing(0));
      s.hit_value = job.steps.front().hit_value;
      job.steps.push_back(s);
    }
  }
  // The GBM record's fields (product, payoff, key: a bridged normal a step, a continuous
  // lookback's second) and the grid's axes.
  static_cast<basic_path_gbm_trade<Real>&>(job.kernel) = make_path_record<Real>(t, a, g, opt, job.paths);
  const local_vol_grid& lv = a.local_vol;
  job.grid = &lv;
  job.kernel.surface = axes_of<Real>(lv);
  if (greeks) {
    for (int i = 0; i < local_vol_bumped_grids; ++i) {
      job.bumped[i] = &a.local_vol_bumped[i];
      job.kernel.bumped[i] = axes_of<Real>(a.local_vol_bumped[i]);
    }
  }
  job.kernel.maturity = static_cast<Real>(t.maturity);
  job.kernel.rate = static_cast<Real>(-std::log(df_T) / t.maturity);
  if (t.product == product_kind::autocallable) append_observation_rows(t, job.steps, job.kernel);
  job.scale = df_T * t.notional;
  return job;
}

template basic_local_vol_job<float> make_local_vol_job<float>(const trade&, const asset&, const market_data&,
                                                              const engine_options&);
template basic_local_vol_job<double> make_local_vol_job<double>(const trade&, const asset&, const market_data&,
                                                                const engine_options&);

}  // namespace mcprice::detail
