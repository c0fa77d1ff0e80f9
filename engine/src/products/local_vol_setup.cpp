#include "products/local_vol_setup.hpp"

#include "products/path_setup.hpp"

#include <cmath>

namespace mcprice::detail {

template <typename Real>
basic_local_vol_job<Real> make_local_vol_job(const trade& t, const asset& a, const market_data& market,
                                             const engine_options& opt)
{
  path_grid const g = make_path_grid(t, opt, true);
  double const df_T = market.discount().discount(t.maturity);
  basic_local_vol_job<Real> job{};
  double t_prev = 0.0;
  for (std::size_t i = 0; i < g.times.size(); ++i) {
    double const ti = g.times[i];
    basic_local_vol_step<Real> s{};
    s.log_forward = static_cast<Real>(market.log_forward(a, ti) - market.log_forward(a, t_prev));
    s.start = static_cast<Real>(t_prev);
    s.dt = static_cast<Real>(ti - t_prev);
    s.root_dt = static_cast<Real>(std::sqrt(ti - t_prev));
    s.hit_value = static_cast<Real>(market.discount().discount(ti) / df_T);
    s.fixing = g.is_fixing[i] ? 1 : 0;
    job.steps.push_back(s);
    t_prev = ti;
  }
  // The GBM record's fields (product, payoff, key: a bridged normal a step, a continuous
  // lookback's second) and the grid's axes.
  static_cast<basic_path_gbm_trade<Real>&>(job.kernel) = make_path_record<Real>(t, a, g, opt, job.paths);
  const local_vol_grid& lv = a.local_vol;
  job.grid = &lv;
  job.kernel.surface = {0, lv.times, lv.points, static_cast<Real>(1.0 / lv.time_step), static_cast<Real>(lv.x0),
                        static_cast<Real>(1.0 / lv.x_step)};
  job.scale = df_T * t.notional;
  return job;
}

template basic_local_vol_job<float> make_local_vol_job<float>(const trade&, const asset&, const market_data&,
                                                              const engine_options&);
template basic_local_vol_job<double> make_local_vol_job<double>(const trade&, const asset&, const market_data&,
                                                                const engine_options&);

}  // namespace mcprice::detail
