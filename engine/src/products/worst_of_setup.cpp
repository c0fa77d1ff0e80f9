#include "products/worst_of_setup.hpp"

#include "mcprice/kernels/greeks/basket_greeks.hpp"
#include "mcprice/kernels/greeks/heston_greeks.hpp"
#include "mcprice/kernels/greeks/local_vol_greeks.hpp"
#include "products/basket_setup.hpp"
#include "products/jump_terms.hpp"
#include "products/local_vol_setup.hpp"
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
template <typename Real>
std::vector<basic_path_greek_step<Real>> worst_of_greek_steps(const std::vector<const asset*>& assets,
                                                              const path_grid& g, double rate)
{
  std::vector<std::vector<basic_path_greek_step<Real>>> per_asset;
  for (const asset* a : assets) per_asset.push_back(make_greek_steps<Real>(*a, g.times, rate));
  std::vector<basic_path_greek_step<Real>> rows;
  for (std::size_t k = 0; k < g.times.size(); ++k) {
    for (auto const& steps : per_asset) rows.push_back(steps[k]);
  }
  return rows;
}

// A worst-of's underlyings: their places in the market and their assets.
struct worst_of_assets {
  std::vector<std::size_t> idx;
  std::vector<const asset*> assets;
};

worst_of_assets assets_of(const trade& t, const market_data& market, const engine_options& opt)
{
  auto const n = static_cast<int>(t.underlyings.size());
  if (opt.rng == rng_kind::sobol && n > worst_of_sobol_assets) {
    throw trade_refused("trade " + t.id + ": --rng sobol prices worst-of autocallables of at most " +
                        std::to_string(worst_of_sobol_assets) + " underlyings, not " + std::to_string(n));
  }
  worst_of_assets u;
  for (auto const& name : t.underlyings) {
    u.idx.push_back(*market.find(name));
    u.assets.push_back(&market.assets()[u.idx.back()]);
  }
  return u;
}

// What every worst-of job holds beside its rows: the record's path fields (the path state follows
// the worst log performance itself, so log_barrier is 0), the initial levels, spots, knock-in
// level, correlation factor and scale (the stream key: normals_per_asset normals an asset a
// step). The rows (and the observation rows) are the caller's.
template <typename Job>
void fill_worst_of(Job& job, const trade& t, const market_data& market, const engine_options& opt,
                   const worst_of_assets& u, const path_grid& g, bool greeks, int normals_per_asset = 1)
{
  using real = decltype(job.kernel.spot);
  auto const n = static_cast<int>(u.assets.size());
  static_cast<basic_path_gbm_trade<real>&>(job.kernel) = make_path_record<real>(t, *u.assets.front(), g, opt, job.paths);
  job.kernel.log_barrier = real(0);
  job.kernel.assets = n;
  job.kernel.key = stream_key(t, opt, job.kernel.steps, normals_per_asset * n, 0);
  job.kernel.greeks = greeks ? 1 : 0;
  double worst_today = 0.0;
  for (int i = 0; i < n; ++i) {
    const asset& a = *u.assets[static_cast<std::size_t>(i)];
    double const initial = t.initial_levels.empty() ? a.spot : t.initial_levels[static_cast<std::size_t>(i)];
    job.log_initials.push_back(static_cast<real>(std::log(initial / a.spot)));
    job.spots.push_back(static_cast<real>(a.spot));
    worst_today = i == 0 ? a.spot / initial : std::min(worst_today, a.spot / initial);
  }
  job.kernel.log_knock_in = knock_in_log_level<real>(t, worst_today);
  job.factor = correlation_factor<real>(market, u.idx, greeks);
  job.scale = market.discount().discount(t.maturity) * t.notional;
}

// Whether a worst-of on `assets` has Greeks: up to the baskets' channels, and every local-vol
// asset's sticky-strike grids made with the market.
bool worst_of_greeks(const engine_options& opt, const std::vector<const asset*>& assets)
{
  bool greeks = opt.greeks && assets.size() <= max_basket_greek_assets;
  for (const asset* a : assets) greeks = greeks && (a->model != model_kind::local_vol || !a->local_vol_bumped.empty());
  return greeks;
}

// Every asset's worst_of_asset_grids axes and the grids they read (a non-local-vol asset's have
// no times and read none; the bumped ones are set with Greeks).
template <typename Real>
void add_worst_of_grids(std::vector<basic_local_vol_axes<Real>>& grids, std::vector<const local_vol_grid*>& sources,
                        const std::vector<const asset*>& assets, bool greeks)
{
  for (const asset* a : assets) {
    bool const local = a->model == model_kind::local_vol;
    grids.push_back(local ? axes_of<Real>(a->local_vol) : basic_local_vol_axes<Real>{});
    sources.push_back(local ? &a->local_vol : nullptr);
    for (int b = 0; b < local_vol_bumped_grids; ++b) {
      bool const bumped = local && greeks;
      grids.push_back(bumped ? axes_of<Real>(a->local_vol_bumped[b]) : basic_local_vol_axes<Real>{});
      sources.push_back(bumped ? &a->local_vol_bumped[b] : nullptr);
    }
  }
}

}  // namespace

template <typename Real>
basic_worst_of_job<Real> make_worst_of_job(const trade& t, const market_data& market, const engine_options& opt)
{
  worst_of_assets const u = assets_of(t, market, opt);
  path_grid const g = make_path_grid(t, opt, false);
  double const df_T = market.discount().discount(t.maturity);
  bool const greeks = opt.greeks && u.assets.size() <= max_basket_greek_assets;
  basic_worst_of_job<Real> job{};
  job.steps = worst_of_steps<Real>(market, u.assets, g, df_T);
  fill_worst_of(job, t, market, opt, u, g, greeks);
  if (greeks) job.greek_steps = worst_of_greek_steps<Real>(u.assets, g, -std::log(df_T) / t.maturity);
  append_observation_rows(t, job.steps, job.kernel);
  if (greeks) job.greek_steps.resize(job.steps.size());
  return job;
}

template <typename Real>
basic_local_vol_worst_of_job<Real> make_local_vol_worst_of_job(const trade& t, const market_data& market,
                                                               const engine_options& opt)
{
  worst_of_assets const u = assets_of(t, market, opt);
  // Equal steps to maturity beside the fixings, as for single-asset local vol.
  path_grid const g = make_path_grid(t, opt, true);
  double const df_T = market.discount().discount(t.maturity);
  bool const greeks = worst_of_greeks(opt, u.assets);
  basic_local_vol_worst_of_job<Real> job{};
  double t_prev = 0.0;
  for (std::size_t k = 0; k < g.times.size(); ++k) {
    for (const asset* a : u.assets) {
      job.steps.push_back(make_local_vol_step<Real>(*a, market, t_prev, g.times[k], df_T, false));
      job.steps.back().fixing = g.marks[k];
    }
    t_prev = g.times[k];
  }
  if (greeks) {
    // Theta's rows: every asset's first step shortened, then lengthened, by the kernel's roll,
    // their payment ratio held (local_vol_worst_of_greeks.hpp).
    double const t1 = g.times.front();
    double const eps = scenario_roll(static_cast<Real>(t1));
    for (double const end : {t1 - eps, t1 + eps}) {
      for (std::size_t i = 0; i < u.assets.size(); ++i) {
        basic_local_vol_step<Real> s = make_local_vol_step<Real>(*u.assets[i], market, 0.0, end, df_T, false);
        s.hit_value = job.steps[i].hit_value;
        s.fixing = job.steps[i].fixing;
        job.steps.push_back(s);
      }
    }
  }
  fill_worst_of(job, t, market, opt, u, g, greeks);
  add_worst_of_grids(job.grids, job.grid_sources, u.assets, greeks);
  job.kernel.maturity = static_cast<Real>(t.maturity);
  job.kernel.rate = static_cast<Real>(-std::log(df_T) / t.maturity);
  append_observation_rows(t, job.steps, job.kernel);
  return job;
}
template local_vol_worst_of_job make_local_vol_worst_of_job<float>(const trade&, const market_data&,
                                                                   const engine_options&);
template basic_local_vol_worst_of_job<double> make_local_vol_worst_of_job<double>(const trade&, const market_data&,
                                                                                  const engine_options&);

namespace {

// A Heston asset's QE step from a to b; a GBM asset's is a Heston step without vol of vol or mean
// reversion, of unit variance, whose length is its total Black variance over the step: QE's
// log-normal branch then takes its exact step (as the multi-asset exercise walks do).
// A jump asset's diffusion steps to its forward less the jumps' compensator (jump_terms.hpp).
// A local-vol asset's row carries the step's payment ratio and marks only (its local-vol row
// steps it).
template <typename Real>
basic_heston_step<Real> worst_of_heston_step(const asset& u, const market_data& market, double a, double b,
                                             double hit_value)
{
  double const log_forward = diffusion_log_forward(market, u, b) - diffusion_log_forward(market, u, a);
  if (u.model == model_kind::local_vol) {
    return make_heston_step<Real>(0.0, log_forward, hit_value, false, 0.0, 1.0, 0.0, 0.0);
  }
  if (u.model != model_kind::heston) {
    double const dw = std::max(0.0, u.vol.total_variance(b) - u.vol.total_variance(a));
    return make_heston_step<Real>(dw, log_forward, hit_value, false, 0.0, 1.0, 0.0, 0.0);
  }
  const heston_params& h = u.heston;
  return make_heston_step<Real>(b - a, log_forward, hit_value, false, h.kappa, h.theta, h.xi, h.rho);
}

// An asset's price-walk parameters and, for Greeks, its vega levels: a Heston asset's v0 and
// theta scale with the vol level +-0.01 (vega_levels, as single-asset Heston Greeks); a GBM
// asset's stay (its rows' Black variances move instead).
template <typename Real>
basic_heston_worst_of_asset<Real> worst_of_heston_asset(const asset& a)
{
  bool const local = a.model == model_kind::local_vol;
  Real const one(1);
  if (a.model != model_kind::heston) return {one, Real(0), jump_law_of<Real>(a), {one, one}, {one, one}, local ? 1 : 0};
  basic_heston_trade<Real> h{};
  h.v0 = static_cast<Real>(a.heston.v0);
  h.theta = static_cast<Real>(a.heston.theta);
  basic_heston_vega_levels<Real> const lv = vega_levels(h);
  return {h.v0, static_cast<Real>(a.heston.xi), jump_law_of<Real>(a), {lv.v0_up, lv.v0_down},
          {lv.theta_up, lv.theta_down}, 0};
}

// The Greek rows of the step rows (job.steps so far, k x n + i): each step's length and end, and
// the vega scenarios' row lengths. A GBM asset's Black variance moves with its step vol shifted
// +-0.01 along its derivative (make_greek_steps), as the GBM worst-of's scenarios move it; a
// Heston asset's row keeps its length (its v0 and theta move), as does a local-vol asset's
// (unused: its grids move).
template <typename Real>
std::vector<basic_heston_worst_of_greek_row<Real>> heston_worst_of_greek_rows(
    const std::vector<const asset*>& assets, const path_grid& g, const std::vector<basic_heston_step<Real>>& steps)
{
  std::vector<std::vector<basic_path_greek_step<Real>>> per_asset;
  for (const asset* a : assets) {
    bool const gbm = a->model == model_kind::gbm;
    per_asset.push_back(gbm ? make_greek_steps<Real>(*a, g.times, 0.0) : std::vector<basic_path_greek_step<Real>>{});
  }
  std::vector<basic_heston_worst_of_greek_row<Real>> rows;
  double t_prev = 0.0;
  for (std::size_t k = 0; k < g.times.size(); ++k) {
    for (std::size_t i = 0; i < assets.size(); ++i) {
      basic_heston_worst_of_greek_row<Real> r{
          static_cast<Real>(g.times[k] - t_prev), static_cast<Real>(g.times[k]), {}};
      Real const own = steps[rows.size()].dt;
      if (per_asset[i].empty()) {
        r.vega_dt[0] = r.vega_dt[1] = own;
      } else {
        double const vol = std::sqrt(static_cast<double>(own));
        double const move = static_cast<double>(scenario_bumps<Real>::vol) * per_asset[i][k].dvol;
        r.vega_dt[0] = static_cast<Real>((vol + move) * (vol + move));
        r.vega_dt[1] = static_cast<Real>(std::max(0.0, vol - move) * std::max(0.0, vol - move));
      }
      rows.push_back(r);
    }
    t_prev = g.times[k];
  }
  return rows;
}

// Asset a's local-vol row from t0 to t1 where the trade has local-vol rows (a blank row for an
// asset of another model, whose row is unused).
template <typename Real>
void push_local_vol_row(basic_heston_worst_of_job<Real>& job, const asset& a, const market_data& market, double t0,
                        double t1, double df_T)
{
  bool const local = a.model == model_kind::local_vol;
  job.local_vol_steps.push_back(local ? make_local_vol_step<Real>(a, market, t0, t1, df_T, false)
                                      : basic_local_vol_step<Real>{});
}

// Theta's rows (after the steps): every asset's first step shortened, then lengthened, by the
// kernel's roll, its payment ratio and marks held; their Greek rows, jump counts and local-vol
// rows beside them.
template <typename Real>
void append_heston_theta_rows(basic_heston_worst_of_job<Real>& job, const std::vector<const asset*>& assets,
                              const market_data& market, double t1, double df_T, bool jumping)
{
  Real const eps = scenario_roll(static_cast<Real>(t1));
  for (double const end : {t1 - eps, t1 + eps}) {
    for (std::size_t i = 0; i < assets.size(); ++i) {
      basic_heston_step<Real> s = worst_of_heston_step<Real>(*assets[i], market, 0.0, end, job.steps[i].hit_value);
      s.fixing = job.steps[i].fixing;
      job.steps.push_back(s);
      job.greek_rows.push_back({static_cast<Real>(end), static_cast<Real>(end), {s.dt, s.dt}});
      if (jumping) job.jump_counts.push_back(static_cast<Real>(jump_intensity(*assets[i]) * end));
      if (!job.local_vol_steps.empty()) push_local_vol_row(job, *assets[i], market, 0.0, end, df_T);
    }
  }
}

}  // namespace

template <typename Real>
basic_heston_worst_of_job<Real> make_heston_worst_of_job(const trade& t, const market_data& market,
                                                         const engine_options& opt)
{
  worst_of_assets const u = assets_of(t, market, opt);
  auto const n = static_cast<int>(u.assets.size());
  constexpr int most = worst_of_sobol_assets / heston_worst_of_normals_per_asset;
  if (opt.rng == rng_kind::sobol && n > most) {
    throw trade_refused("trade " + t.id + ": --rng sobol prices worst-of autocallables on Heston or jump assets of " +
                        "at most " + std::to_string(most) + " underlyings (two normals an asset a step), not " +
                        std::to_string(n));
  }
  path_grid const g = make_path_grid(t, opt, true);
  double const df_T = market.discount().discount(t.maturity);
  basic_heston_worst_of_job<Real> job{};
  int const jumping = static_cast<int>(
      std::count_if(u.assets.begin(), u.assets.end(), [](const asset* a) { return jump_intensity(*a) > 0.0; }));
  bool const local = std::any_of(u.assets.begin(), u.assets.end(),
                                 [](const asset* a) { return a->model == model_kind::local_vol; });
  double t_prev = 0.0;
  for (std::size_t k = 0; k < g.times.size(); ++k) {
    double const hit_value = market.discount().discount(g.times[k]) / df_T;
    for (const asset* a : u.assets) {
      job.steps.push_back(worst_of_heston_step<Real>(*a, market, t_prev, g.times[k], hit_value));
      job.steps.back().fixing = g.marks[k];
      if (jumping > 0) job.jump_counts.push_back(static_cast<Real>(jump_intensity(*a) * (g.times[k] - t_prev)));
      if (local) push_local_vol_row(job, *a, market, t_prev, g.times[k], df_T);
    }
    t_prev = g.times[k];
  }
  bool const greeks = worst_of_greeks(opt, u.assets);
  if (greeks) {
    job.greek_rows = heston_worst_of_greek_rows(u.assets, g, job.steps);
    append_heston_theta_rows(job, u.assets, market, g.times.front(), df_T, jumping > 0);
  }
  for (const asset* a : u.assets) job.assets.push_back(worst_of_heston_asset<Real>(*a));
  if (local) add_worst_of_grids(job.grids, job.grid_sources, u.assets, greeks);
  fill_worst_of(job, t, market, opt, u, g, greeks, heston_worst_of_normals_per_asset);
  job.kernel.maturity = static_cast<Real>(t.maturity);
  job.kernel.rate = static_cast<Real>(-std::log(df_T) / t.maturity);
  if (jumping > 0) {
    int const steps = job.kernel.steps;
    job.kernel.key =
        stream_key(t, opt, steps, heston_worst_of_normals_per_asset * n, jump_feeder_uniforms(steps, jumping));
  }
  append_observation_rows(t, job.steps, job.kernel);
  return job;
}

template heston_worst_of_job make_heston_worst_of_job<float>(const trade&, const market_data&, const engine_options&);
template basic_heston_worst_of_job<double> make_heston_worst_of_job<double>(const trade&, const market_data&,
                                                                            const engine_options&);
template basic_worst_of_job<float> make_worst_of_job<float>(const trade&, const market_data&, const engine_options&);
template basic_worst_of_job<double> make_worst_of_job<double>(const trade&, const market_data&, const engine_options&);

}  // namespace mcprice::detail
