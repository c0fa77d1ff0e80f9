#include "products/early_exercise_setup.hpp"

#include "mcprice/kernels/rng/trade_key.hpp"
#include "products/basket_setup.hpp"
#include "products/jump_terms.hpp"
#include "products/local_vol_setup.hpp"
#include "products/stream_keys.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

namespace mcprice::detail {

std::vector<double> exercise_times(const trade& t, const engine_options& opt)
{
  if (t.exercise == exercise_style::european) return {t.maturity};
  std::int64_t const n = t.exercise_dates.value_or(t.steps.value_or(opt.steps));
  std::vector<double> times;
  for (std::int64_t i = 1; i <= n; ++i) times.push_back(t.maturity * static_cast<double>(i) / static_cast<double>(n));
  return times;
}

namespace {

// The basis' spot scale: the strike, else the assets' mean scaled spot today.
template <typename Real>
Real basis_norm(const trade& t, const std::vector<basic_exercise_asset<Real>>& assets)
{
  if (t.strike && *t.strike > 0.0) return static_cast<Real>(*t.strike);
  double level = 0.0;
  for (auto const& a : assets) level += std::abs(static_cast<double>(a.weight) * a.spot);
  level /= static_cast<double>(assets.size());
  return level > 0.0 ? static_cast<Real>(level) : Real(1);
}

template <typename Real>
void add_gbm_steps(const asset& a, const market_data& market, const std::vector<double>& times, std::size_t stride,
                   std::size_t offset, std::vector<basic_exercise_gbm_step<Real>>& out)
{
  double t_prev = 0.0;
  for (std::size_t d = 0; d < times.size(); ++d) {
    double const dw = std::max(0.0, a.vol.total_variance(times[d]) - a.vol.total_variance(t_prev));
    double const drift =
        diffusion_log_forward(market, a, times[d]) - diffusion_log_forward(market, a, t_prev) - 0.5 * dw;
    out[d * stride + offset] = {static_cast<Real>(drift), static_cast<Real>(std::sqrt(dw))};
    t_prev = times[d];
  }
}

// A GBM vanilla's European terms (european_terms_at), after its steps: per exercise date
// ln(F(T)/F(t_d)) and sqrt(w(T) - w(t_d)), in double here; then per date the job's P(0, t_d) and
// P(0, T).
template <typename Real>
void add_european_left(const asset& a, const market_data& market, const std::vector<double>& times,
                       const std::vector<Real>& discounts, std::vector<basic_exercise_gbm_step<Real>>& out)
{
  double const maturity = times.back();
  double const log_forward = diffusion_log_forward(market, a, maturity);
  double const variance = a.vol.total_variance(maturity);
  for (double const t : times) {
    double const left = std::max(0.0, variance - a.vol.total_variance(t));
    out.push_back({static_cast<Real>(log_forward - diffusion_log_forward(market, a, t)),
                   static_cast<Real>(std::sqrt(left))});
  }
  for (Real const p : discounts) out.push_back({p, discounts.back()});
}

// The last few distinct decays of one asset's steps, found by their exact kappa dt, so the same
// bits as computing each: a uniform grid's steps take a handful of lengths (ulps apart: 5 for
// 252 steps over a year, 8 for 1,260 over five), and the exponentials were a third of a
// STAC-A2-style trade's host preparation (its scenarios build 16 copies of the steps).
class decay_cache {
 public:
  const heston_decay& at(double kdt)
  {
    for (std::size_t i = 0; i < size_; ++i) {
      if (kept_[i].first == kdt) return kept_[i].second;
    }
    std::size_t const slot = next_++ % kept_.size();
    kept_[slot] = {kdt, heston_decay_of(kdt)};
    size_ = std::min(size_ + 1, kept_.size());
    return kept_[slot].second;
  }

 private:
  std::array<std::pair<double, heston_decay>, 16> kept_{};
  std::size_t size_{0};
  std::size_t next_{0};
};

template <typename T>
std::int32_t append(std::vector<T>& to, const std::vector<T>& from)
{
  auto const at = static_cast<std::int32_t>(to.size());
  to.insert(to.end(), from.begin(), from.end());
  return at;
}

// f(a, b) for each step of the walk, in order: `substeps` equal pieces of each date's interval
// (the last one ending on the date exactly).
template <typename F>
void for_each_substep(const std::vector<double>& times, int substeps, F&& f)
{
  double t_prev = 0.0;
  for (double const ti : times) {
    double const dt = (ti - t_prev) / substeps;
    for (int s = 0; s < substeps; ++s) f(t_prev + dt * s, s + 1 == substeps ? ti : t_prev + dt * (s + 1));
    t_prev = ti;
  }
}

// The job's record with its tables appended to the family's.
template <typename Real>
basic_exercise_trade<Real> with_tables(basic_exercise_family<Real>& f, const basic_exercise_job<Real>& j)
{
  basic_exercise_trade<Real> k = j.kernel;
  k.first_date = append(f.discounts, j.discounts);
  k.first_step = k.heston ? append(f.heston_steps, j.heston_steps) : append(f.gbm_steps, j.gbm_steps);
  k.first_jump = append(f.jump_counts, j.jump_counts);
  k.first_asset = append(f.assets, j.assets);
  k.first_factor = append(f.factors, j.factor);
  for (std::size_t i = 0; i < j.grids.size(); ++i) {
    if (j.grids[i] != nullptr)
      f.assets[static_cast<std::size_t>(k.first_asset) + i].surface.first = f.surfaces.place(*j.grids[i]);
  }
  return k;
}

// What exercising today pays (American), else -1.
template <typename Real>
double exercise_today(const trade& t, const basic_exercise_job<Real>& job)
{
  if (t.exercise != exercise_style::american) return -1.0;
  basic_exercise_state<Real> today{};
  today.grow(job.kernel.assets);
  return exercise_value(job.kernel, job.assets.data(), today);
}

// A GBM asset's step from a to b among Heston assets: a Heston step with no vol of vol, no mean
// reversion and a unit variance, whose "length" is the step's total Black variance w(b) - w(a).
// heston_qe_step's log-normal branch then steps ln S by log_forward - dw/2 + sqrt(dw) z: exactly
// the GBM step, on the asset's vol curve.
template <typename Real>
basic_heston_step<Real> log_normal_heston_step(const asset& u, double a, double b, double log_forward)
{
  double const dw = std::max(0.0, u.vol.total_variance(b) - u.vol.total_variance(a));
  return make_heston_step<Real>(dw, log_forward, 1.0, false, 0.0, 1.0, 0.0, 0.0);
}

// Sets the jumping assets' laws and the job's mean jump counts, lambda dt per step (a date, or a
// substep when the walk substeps) and asset, on the steps' own times; returns the jumping assets.
template <typename Real>
int add_jumps(const market_data& market, const std::vector<std::size_t>& idx, const std::vector<double>& times,
              int substeps, basic_exercise_job<Real>& job)
{
  int jumping = 0;
  for (std::size_t i = 0; i < idx.size(); ++i) {
    const asset& u = market.assets()[idx[i]];
    if (jump_intensity(u) <= 0.0) continue;
    job.assets[i].jumps = jump_law_of<Real>(u);
    ++jumping;
  }
  if (jumping == 0) return 0;
  for_each_substep(times, substeps, [&](double a, double b) {
    for (std::size_t i = 0; i < idx.size(); ++i)
      job.jump_counts.push_back(static_cast<Real>(jump_intensity(market.assets()[idx[i]]) * (b - a)));
  });
  return jumping;
}

}  // namespace

template <typename Real>
void add_to_family(basic_exercise_family<Real>& f, const basic_exercise_job<Real>& j)
{
  basic_exercise_trade<Real> k = with_tables(f, j);
  k.first_block = f.blocks;
  f.blocks += layout::blocks_for(k.samples, exercise_normals_per_sample);
  k.first_calibration_block = f.calibration_blocks;
  std::int64_t const blocks = (k.calibration_samples + calibration_paths_per_block - 1) / calibration_paths_per_block;
  f.calibration_blocks += blocks;
  k.calibration_offset = f.calibration_floats;
  f.calibration_floats += blocks * calibration_paths_per_block * calibration_rows(k);
  k.first_coefficient = f.coefficient_dates;
  f.coefficient_dates += k.dates;
  k.first_left = k.european_floor ? k.first_step + k.dates : 0;
  f.trades.push_back(k);
}

template <typename Real>
std::int32_t add_scenario(basic_exercise_family<Real>& f, const basic_exercise_job<Real>& j, std::size_t of)
{
  basic_exercise_trade<Real> k = j.kernel;
  if (j.trade_tables) {
    const basic_exercise_trade<Real>& own = f.trades[of];
    k.first_date = own.first_date;
    k.first_step = own.first_step;
    k.first_jump = own.first_jump;
    k.first_factor = own.first_factor;
    k.first_asset = append(f.assets, j.assets);
  } else {
    k = with_tables(f, j);
  }
  // The trade's policy as it stands: its coefficients, on its basis' scales and European terms.
  k.first_coefficient = f.trades[of].first_coefficient;
  k.first_left = f.trades[of].first_left;
  k.norm = f.trades[of].norm;
  k.v_norm = f.trades[of].v_norm;
  f.scenarios.push_back(k);
  return static_cast<std::int32_t>(f.scenarios.size() - 1);
}

template <typename Real>
basic_exercise_job<Real> make_exercise_job(const trade& t, const market_data& market, const engine_options& opt)
{
  std::vector<double> const times = exercise_times(t, opt);
  std::size_t const n = t.underlyings.size();
  std::vector<std::size_t> idx;
  for (auto const& name : t.underlyings) idx.push_back(*market.find(name));
  // Any Heston or local-vol asset makes the paths substepped (Heston's table); a GBM asset
  // beside it steps log-normally in them (log_normal_heston_step), a local-vol one by its grid.
  // The basis carries variances only where some variance moves (a Heston asset).
  auto const any_model = [&](model_kind m) {
    return std::any_of(idx.begin(), idx.end(), [&](std::size_t i) { return market.assets()[i].model == m; });
  };
  bool const variance_basis = any_model(model_kind::heston);
  bool const heston = variance_basis || any_model(model_kind::local_vol);

  basic_exercise_job<Real> job{};
  basic_exercise_trade<Real>& k = job.kernel;
  k.samples = t.paths.value_or(opt.paths);
  job.paths = k.samples;
  k.calibration_samples =
      opt.calibration_paths > 0 ? opt.calibration_paths : std::min(k.samples, default_max_calibration_paths);
  // A European (one date: multi-asset Heston trades come this way) needs no regression.
  if (t.exercise == exercise_style::european) k.calibration_samples = 1;
  k.dates = static_cast<std::int32_t>(times.size());
  k.assets = static_cast<std::int32_t>(n);
  k.heston = heston ? 1 : 0;
  k.variance_basis = variance_basis ? 1 : 0;
  k.basis = exercise_basis_size(k.assets, variance_basis);
  k.strike = static_cast<Real>(t.strike.value_or(0.0));
  k.call = t.type == option_type::call ? 1 : 0;
  k.payoff = t.product == product_kind::best_of    ? basket_payoff::best_of
             : t.product == product_kind::worst_of ? basket_payoff::worst_of
             : t.product == product_kind::spread   ? basket_payoff::spread
                                                   : basket_payoff::basket;
  for (std::size_t i = 0; i < n; ++i) {
    Real const w = n == 1 ? Real(1) : static_cast<Real>(basket_weight(t, i, n));
    job.assets.push_back({static_cast<Real>(market.assets()[idx[i]].spot), w, Real(0), Real(0), {}, {}});
  }
  k.norm = basis_norm(t, job.assets);
  k.unit_weights =
      std::all_of(job.assets.begin(), job.assets.end(), [](const auto& a) { return a.weight == Real(1); }) ? 1 : 0;
  for (double const ti : times) job.discounts.push_back(static_cast<Real>(market.discount().discount(ti)));

  if (heston) {
    std::int64_t const steps = t.steps.value_or(opt.steps);
    k.substeps = static_cast<std::int32_t>(std::max<std::int64_t>(1, (steps + k.dates - 1) / k.dates));
    job.heston_steps.reserve(times.size() * static_cast<std::size_t>(k.substeps) * n);
    std::vector<decay_cache> decays(n);
    for_each_substep(times, k.substeps, [&](double a, double b) {
      for (std::size_t i = 0; i < n; ++i) {
        const asset& u = market.assets()[idx[i]];
        double const log_forward = diffusion_log_forward(market, u, b) - diffusion_log_forward(market, u, a);
        if (u.model == model_kind::local_vol) {
          // The walk reads dt and log_forward alone: the vol is the grid's.
          job.heston_steps.push_back(make_heston_step<Real>(b - a, log_forward, 1.0, false, 0.0, 1.0, 0.0, 0.0));
          continue;
        }
        if (u.model != model_kind::heston) {
          job.heston_steps.push_back(log_normal_heston_step<Real>(u, a, b, log_forward));
          continue;
        }
        const heston_params& h = u.heston;
        double const step = b - a;
        job.heston_steps.push_back(make_heston_step<Real>(step, log_forward, 1.0, false, h.kappa, h.theta, h.xi,
                                                          h.rho, decays[i].at(h.kappa * step)));
      }
    });
    double v_norm = 1e-4;
    job.grids.assign(n, nullptr);
    for (std::size_t i = 0; i < n; ++i) {
      const asset& u = market.assets()[idx[i]];
      if (u.model == model_kind::local_vol) {
        job.grids[i] = &u.local_vol;
        job.assets[i].surface = axes_of<Real>(u.local_vol);  // its place: with_tables
        continue;
      }
      if (u.model != model_kind::heston) {
        job.assets[i].v0 = Real(1);  // log_normal_heston_step's unit variance; no vol of vol
        continue;
      }
      const heston_params& h = u.heston;
      job.assets[i].v0 = static_cast<Real>(h.v0);
      job.assets[i].xi = static_cast<Real>(h.xi);
      v_norm = std::max({v_norm, h.theta, h.v0});
    }
    k.v_norm = static_cast<Real>(v_norm);
  } else {
    k.substeps = 1;
    k.v_norm = Real(1);
    job.gbm_steps.resize(times.size() * n);
    for (std::size_t i = 0; i < n; ++i) add_gbm_steps(market.assets()[idx[i]], market, times, n, i, job.gbm_steps);
  }
  int const jumping = add_jumps(market, idx, times, k.substeps, job);
  k.jumps = jumping > 0 ? 1 : 0;
  // Black's formula prices what is left of a GBM vanilla: the base of its continuation value and
  // the policy's floor (european_floor), from more step-table entries.
  k.european_floor = n == 1 && !heston && jumping == 0 ? 1 : 0;
  if (k.european_floor) add_european_left(market.assets()[idx[0]], market, times, job.discounts, job.gbm_steps);
  // A date (GBM) or substep (Heston) draws a normal an asset, Heston first one an asset for the
  // variances, then a jump trade two raw draws a jumping asset, two assets' a next_uint4
  // (walk_exercise_paths). The regression keeps Philox paths under --rng sobol.
  int const steps = k.dates * k.substeps;
  k.key = stream_key(t, opt, steps, static_cast<int>(heston ? 2 * n : n), jump_feeder_uniforms(steps, jumping));
  k.calibration_key = rng::mix64(k.key ^ 0x4C53'4D43'5245'4752ULL);  // "LSMCREGR": a stream of its own
  job.factor = n == 1 ? std::vector<Real>{Real(1)} : correlation_factor<Real>(market, idx);
  job.scale = t.notional;
  job.exercise_today = exercise_today(t, job);
  return job;
}

template basic_exercise_job<float> make_exercise_job<float>(const trade&, const market_data&, const engine_options&);
template basic_exercise_job<double> make_exercise_job<double>(const trade&, const market_data&, const engine_options&);
template void add_to_family<float>(exercise_family&, const exercise_job&);
template void add_to_family<double>(basic_exercise_family<double>&, const basic_exercise_job<double>&);

template <typename Real>
basic_exercise_job<Real> with_spots(const basic_exercise_job<Real>& base, const trade& t,
                                    const std::vector<double>& spots)
{
  basic_exercise_job<Real> job{base.kernel, base.assets, {}, {}, {}, {}, base.scale, base.paths, -1.0, true, {}, {}};
  for (std::size_t i = 0; i < job.assets.size(); ++i) job.assets[i].spot = static_cast<Real>(spots[i]);
  job.kernel.norm = basis_norm(t, job.assets);
  job.exercise_today = exercise_today(t, job);
  return job;
}

template exercise_job with_spots(const exercise_job&, const trade&, const std::vector<double>&);
template basic_exercise_job<double> with_spots(const basic_exercise_job<double>&, const trade&,
                                               const std::vector<double>&);
template std::int32_t add_scenario(exercise_family&, const exercise_job&, std::size_t);
template std::int32_t add_scenario(basic_exercise_family<double>&, const basic_exercise_job<double>&, std::size_t);

}  // namespace mcprice::detail
