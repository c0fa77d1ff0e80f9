#include "products/worst_of_setup.hpp"

#include "mcprice/kernels/greeks/basket_greeks.hpp"
#include "products/basket_setup.hpp"
#include "products/path_setup.hpp"
#include "products/stream_keys.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>

namespace mcprice::detail {
namespace {

// Rows k x n + i: asset i's exact log-normal step from t_{k-1} to t_k (the single-asset paths'
// steps, interleaved).
template <typename Real>
std::vector<basic_path_step<Real>> worst_of_steps(const market_data& market, const std::vector<const asset*>& assets,
                                                  const path_grid& g, double df_T)
{
  std::vector<std::vector<basic_path_step<Real>>> per_asset;
  for (const asset* a : assets) per_asset.push_back(gbm_path_steps<Real>(market, *a, g, df_T));
  std::vector<basic_path_step<Real>> rows;
  for (std::size_t k = 0; k < g.times.size(); ++k) {
    for (auto const& steps : per_asset) rows.push_back(steps[k]);
  }
  return rows;
}

// Rows parallel to the step rows: asset i's Greek step k at k x n + i (make_greek_steps).
std::vector<path_greek_step> worst_of_greek_steps(const std::vector<const asset*>& assets, const path_grid& g,
                                                  double rate)
{
  std::vector<std::vector<path_greek_step>> per_asset;
  for (const asset* a : assets) per_asset.push_back(make_greek_steps(*a, g.times, rate));
  std::vector<path_greek_step> rows;
  for (std::size_t k = 0; k < g.times.size(); ++k) {
    for (auto const& steps : per_asset) rows.push_back(steps[k]);
  }
  return rows;
}

}  // namespace

template <typename Real>
basic_worst_of_job<Real> make_worst_of_job(const trade& t, const market_data& market, const engine_options& opt)
{
  auto const n = static_cast<int>(t.underlyings.size());
  if (opt.rng == rng_kind::sobol && n > worst_of_sobol_assets) {
    throw trade_refused("trade " + t.id + ": --rng sobol prices worst-of autocallables of at most " +
                        std::to_string(worst_of_sobol_assets) + " underlyings, not " + std::to_string(n));
  }
  std::vector<std::size_t> idx;
  std::vector<const asset*> assets;
  for (auto const& name : t.underlyings) {
    idx.push_back(*market.find(name));
    assets.push_back(&market.assets()[idx.back()]);
  }
  path_grid const g = make_path_grid(t, opt, false);
  double const df_T = market.discount().discount(t.maturity);
  basic_worst_of_job<Real> job{};
  job.steps = worst_of_steps<Real>(market, assets, g, df_T);
  static_cast<basic_path_gbm_trade<Real>&>(job.kernel) = make_path_record<Real>(t, *assets.front(), g, opt, job.paths);
  job.kernel.log_barrier = Real(0);  // the path state follows the worst log performance itself
  job.kernel.assets = n;
  job.kernel.key = stream_key(t, opt, job.kernel.steps, n, 0);
  bool const greeks = opt.greeks && std::is_same_v<Real, float> && n <= max_basket_greek_assets;
  if (greeks) job.greek_steps = worst_of_greek_steps(assets, g, -std::log(df_T) / t.maturity);
  append_observation_rows(t, job.steps, job.kernel);
  if (greeks) job.greek_steps.resize(job.steps.size());
  job.kernel.greeks = greeks ? 1 : 0;
  double worst_today = 0.0;
  for (int i = 0; i < n; ++i) {
    double const initial = t.initial_levels.empty() ? assets[i]->spot : t.initial_levels[static_cast<std::size_t>(i)];
    job.log_initials.push_back(static_cast<Real>(std::log(initial / assets[i]->spot)));
    job.spots.push_back(static_cast<Real>(assets[i]->spot));
    worst_today = i == 0 ? assets[i]->spot / initial : std::min(worst_today, assets[i]->spot / initial);
  }
  job.kernel.log_knock_in = knock_in_log_level<Real>(t, worst_today);
  job.factor = correlation_factor<Real>(market, idx, greeks);
  job.scale = df_T * t.notional;
  return job;
}

template basic_worst_of_job<float> make_worst_of_job<float>(const trade&, const market_data&, const engine_options&);
template basic_worst_of_job<double> make_worst_of_job<double>(const trade&, const market_data&, const engine_options&);

}  // namespace mcprice::detail
