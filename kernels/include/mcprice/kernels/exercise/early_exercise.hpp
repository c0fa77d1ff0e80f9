#pragma once
// Early exercise by least squares (F. Longstaff, E. Schwartz, "Valuing American Options by
// Simulation", RFS 2001): American and Bermudan vanillas, baskets, best-of, worst-of and spreads
// on correlated GBM assets or on correlated Heston assets (also the European multi-asset
// Heston trades, as one exercise date). Per-path maths shared by the GPU kernels and the CPU
// backend:
// - a path walks its exercise dates (GBM: one exact log-normal step per date and asset, the
//   normals correlated by the factor; Heston: `substeps` QE steps per date and asset, the
//   log-spot normals correlated by the factor, each variance's own);
// - calibration paths (their own Philox key) store their state at every date; going backward,
//   the in-the-money paths' basis functions and cash flows form normal equations (double sums,
//   fixed order), whose solution is the continuation value's coefficients at that date;
// - pricing paths (the trade's key: fresh paths) exercise the first time the exercise value
//   reaches the regressed continuation value. Their mean is an unbiased estimate of a feasible
//   policy's value: a low-biased estimate of the price.
// Cash flows are discounted to today, so the regression needs no division by discount factors.
#include "mcprice/kernels/launch/tuning.hpp"
#include "mcprice/kernels/models/basket_gbm.hpp"
#include "mcprice/kernels/models/heston_path.hpp"
#include "mcprice/kernels/models/jump_feeder.hpp"
#include "mcprice/kernels/models/local_vol_path.hpp"

#include <cstdint>
#include <type_traits>

namespace mcprice {

inline constexpr int max_exercise_assets = 10;
inline constexpr int max_exercise_basis = 10;
inline constexpr int regression_matrix_entries = max_exercise_basis * (max_exercise_basis + 1) / 2;

// Real: the path precision (float, or double for --precision double); exercise_trade and the
// other unprefixed names below are the float instances.
template <typename Real>
struct basic_exercise_trade {
  using real = Real;
  std::uint64_t key;              // pricing paths
  std::uint64_t calibration_key;  // regression paths: a stream of their own
  std::int64_t samples;           // pricing paths (one sample a path)
  std::int64_t first_block;       // pricing blocks, within the request
  std::int64_t calibration_samples;
  std::int64_t first_calibration_block;
  std::int64_t calibration_offset;  // floats of the family's path scratch before this trade's
  std::int32_t dates;               // exercise dates after today; the last one is maturity
  std::int32_t substeps;            // Heston: QE steps per date; GBM: 1 (exact)
  std::int32_t first_date;          // into the discount table (dates entries)
  std::int32_t first_coefficient;   // into the coefficient table, in dates (a Greek scenario reads its trade's)
  std::int32_t first_step;          // GBM: into the GBM step table (dates x assets); Heston: the Heston steps
  std::int32_t first_jump;          // jumps: into the jump-count table (steps x assets, as the steps)
  std::int32_t first_asset;         // into the asset table
  std::int32_t first_left;          // european_floor: into the GBM step table, the trade's European terms
  std::int32_t first_factor;        // into the factor table (assets x assets, row-major)
  std::int32_t assets;
  std::int32_t basis;  // basis functions used (exercise_basis)
  Real strike;
  Real norm;                  // spots are divided by it in the basis (the strike, or the payoff's level today)
  Real v_norm;                // Heston: the variance's scale in the basis
  enum basket_payoff payoff;  // a vanilla is a basket of one asset of weight 1
  std::uint8_t call;
  // The paths step in substeps (heston_step table): any Heston or local-vol asset. GBM assets
  // beside them step log-normally, local-vol ones by their grid (walk_exercise_paths).
  std::uint8_t heston;
  std::uint8_t variance_basis;  // any Heston asset: the basis carries the variances (exercise_basis)
  std::uint8_t unit_weights;    // every asset's weight is 1 (best-of, worst-of, a vanilla): w S is S
  std::uint8_t jumps;           // some asset jumps (exercise_asset::jumps): the walk draws for it
  // A GBM vanilla (one asset, no jumps): its continuation value is the European value of the rest
  // of the option plus the regressed premium over it, and a path exercises only where that pays
  // at least the European value, which holding is always worth (european_value_left). Its
  // European terms follow its steps in the step table (european_terms_at, from first_left). A
  // Greek scenario decides on its trade's terms, as on its trade's coefficients: the policy is
  // held, a function of the spot alone.
  std::uint8_t european_floor;
};
using exercise_trade = basic_exercise_trade<float>;

// The path precision of a record (sized or not).
template <typename Trade>
using real_of = typename Trade::real;

template <typename Real>
MCPRICE_HD MCPRICE_INLINE int asset_count(const basic_exercise_trade<Real>& t)
{
  return t.assets;
}

// The record with its asset count as a compile-time constant: the per-asset state, loops and
// correlation products of a path then live in registers, fully unrolled (with a run-time count
// they go to local memory). A kernel's registers are its largest variant's: sizing 2 and 3
// assets inside the one pricing kernel slowed its other trades by 5-8%, and sizing 5 inside the
// one Greek kernel slowed the 10-asset trades' by 4% (docs/benchmarks.md). So the pricing
// kernel sizes one asset only (18% for Longstaff-Schwartz's put); the Greek combinations get a
// kernel per sized count (tuning::exercise_sized_assets); the calibration kernels, whose
// registers are not capped, size one asset and those counts.
template <typename Real, int N>
struct basic_sized_trade : basic_exercise_trade<Real> {
};
template <int N>
using sized_trade = basic_sized_trade<float, N>;

template <typename Real, int N>
MCPRICE_HD MCPRICE_INLINE constexpr int asset_count(const basic_sized_trade<Real, N>&)
{
  return N;
}

template <int N, typename Real>
MCPRICE_HD MCPRICE_INLINE basic_sized_trade<Real, N> as_sized(const basic_exercise_trade<Real>& t)
{
  basic_sized_trade<Real, N> s;
  static_cast<basic_exercise_trade<Real>&>(s) = t;
  return s;
}

// f(the record sized for one asset), else f(t).
template <typename Real, typename F>
MCPRICE_HD MCPRICE_INLINE decltype(auto) with_one_asset_sized(const basic_exercise_trade<Real>& t, F&& f)
{
  if (t.assets == 1) return f(as_sized<1>(t));
  return f(t);
}

template <int... N, typename Real, typename F>
MCPRICE_HD MCPRICE_INLINE decltype(auto) with_sized_from(tuning::asset_counts<N...>, const basic_exercise_trade<Real>& t,
                                                         F&& f)
{
  using result = decltype(f(t));
  if constexpr (std::is_void_v<result>) {
    if (!((t.assets == N && (f(as_sized<N>(t)), true)) || ...)) with_one_asset_sized(t, f);
  } else {
    result r{};
    if (!((t.assets == N && (r = f(as_sized<N>(t)), true)) || ...)) r = with_one_asset_sized(t, f);
    return r;
  }
}

// f(the record sized for its asset count where that count has sized kernels: one asset, and
// tuning::exercise_sized_assets), else f(t).
template <typename Real, typename F>
MCPRICE_HD MCPRICE_INLINE decltype(auto) with_sized_trade(const basic_exercise_trade<Real>& t, F&& f)
{
  return with_sized_from(tuning::exercise_sized_assets{}, t, f);
}

// f(the record sized for `Assets` assets, which it has), or with Assets = 0 as with_one_asset_sized:
// a kernel compiled for one asset count (the Greek combinations', tuning.hpp) takes only its
// trades, so its registers are its own.
template <int Assets, typename Real, typename F>
MCPRICE_HD MCPRICE_INLINE decltype(auto) with_trade_sized_for(const basic_exercise_trade<Real>& t, F&& f)
{
  if constexpr (Assets > 0) {
    return f(as_sized<Assets>(t));
  } else {
    return with_one_asset_sized(t, f);
  }
}

// A record of the same kind as `like` (sized or plain) from a plain one.
template <typename Real, int N>
MCPRICE_HD MCPRICE_INLINE basic_sized_trade<Real, N> same_kind(const basic_sized_trade<Real, N>&,
                                                               const basic_exercise_trade<Real>& t)
{
  return as_sized<N>(t);
}
template <typename Real>
MCPRICE_HD MCPRICE_INLINE const basic_exercise_trade<Real>& same_kind(const basic_exercise_trade<Real>&,
                                                                      const basic_exercise_trade<Real>& t)
{
  return t;
}

template <typename Real>
struct basic_exercise_asset {
  Real spot;
  Real weight;
  Real v0;  // Heston
  Real xi;  // Heston
  // Local vol: its grid's place in the surface table and its axes; times 0 for other models.
  basic_local_vol_axes<Real> surface;
  // Merton / Bates jumps (intensity 0: none). A step's mean count is in the jump-count table.
  basic_jump_law<Real> jumps;
};
using exercise_asset = basic_exercise_asset<float>;

// GBM: the step table holds dates x assets entries; Heston: dates x substeps x assets.
// One date's step of one GBM asset: ln(F(t_d)/F(t_{d-1})) - dw/2 and sqrt(dw).
template <typename Real>
struct basic_exercise_gbm_step {
  Real drift;
  Real vol;
};
using exercise_gbm_step = basic_exercise_gbm_step<float>;

struct exercise_walk_group;

// The tables a family's trades index into (device pointers in kernels, host ones on the CPU).
template <typename Real>
struct basic_exercise_tables {
  const basic_exercise_asset<Real>* assets;
  const Real* factors;
  const basic_exercise_gbm_step<Real>* gbm;
  const basic_heston_step<Real>* heston;
  const Real* discounts;                   // P(0, t_d) per trade date
  const Real* coefficients;                // max_exercise_basis per trade date; zeros until calibrated
  const basic_exercise_trade<Real>* scenarios;  // Greeks: the trades' bumped copies (exercise_combination)
  const exercise_walk_group* groups;       // Greeks on the GPU: combinations walked together
  const basic_vol_pair<Real>* surfaces;    // local-vol assets' grids (exercise_asset::surface)
  // Jump trades: lambda dt per step and asset (first_jump); null where no trade of the tables
  // jumps (the launchers then choose kernels without the jump walk: jumpless_stream).
  const Real* jump_counts;
};
using exercise_tables = basic_exercise_tables<float>;

// The state of a path at a date.
template <typename Real>
struct basic_exercise_state {
  Real x[max_exercise_assets];       // ln(S_i(t) / S_i(0))
  Real v[max_exercise_assets];       // Heston variances
  Real growth[max_exercise_assets];  // S_i(t) / S_i(0) = exp(x_i): once per date, for every scenario
  Real v_sum;                        // the variances' sum in asset order (the Heston basis)

  MCPRICE_HD MCPRICE_INLINE void grow(int assets)
  {
    Real sum = Real(0);
    for (int a = 0; a < assets; ++a) {
      growth[a] = math::exp(x[a]);
      sum += v[a];
    }
    v_sum = sum;
  }
};
using exercise_state = basic_exercise_state<float>;

// A second scenario walked beside a trade's: it differs from the trade only in one asset's own
// inputs (vega's legs: that asset's v0 and variance steps, or its GBM vol), so that asset alone is
// stepped again, on the same normals, with the second scenario's tables. x and v: its state.
template <typename Real>
struct basic_asset_variant {
  const basic_exercise_trade<Real>* other;  // nullptr: no second scenario
  int asset;
  Real x;
  Real v;
};
using asset_variant = basic_asset_variant<float>;

// Adds step `step`'s jumps to the log spots: one jump_draw for each jumping asset, in asset
// order, after the step's diffusion (Merton's exact step: the count from its Poisson law, the
// sizes' sum given it). The variant's asset takes the same draw with its scenario's counts.
template <typename Feeder, typename Trade, typename Real = real_of<Trade>>
MCPRICE_HD MCPRICE_INLINE void add_step_jumps(const Trade& t, const basic_exercise_tables<Real>& tab, std::int64_t step,
                                              Feeder& draws, basic_exercise_state<Real>& s,
                                              basic_asset_variant<Real>& variant)
{
  const basic_exercise_asset<Real>* assets = tab.assets + t.first_asset;
  const Real* counts = tab.jump_counts + t.first_jump + step * asset_count(t);
  for (int a = 0; a < asset_count(t); ++a) {
    if (!(assets[a].jumps.intensity > Real(0))) continue;
    jump_draw const d = draws.next();
    s.x[a] += log_jump(assets[a].jumps, counts[a], d);
    if (variant.other != nullptr && variant.asset == a) {
      const basic_exercise_trade<Real>& o = *variant.other;
      Real const m = tab.jump_counts[o.first_jump + step * asset_count(t) + a];
      variant.x += log_jump(tab.assets[o.first_asset + a].jumps, m, d);
    }
  }
}

// Walks a path over the trade's dates: visit(date, state, variant's state) after each, stopping
// when it returns true. Normals are handed out one at a time: per date, GBM takes one per asset;
// Heston, per substep, one per asset for the variances, then one per asset for the log spots.
// A jump trade's steps then take a jump_draw per jumping asset (add_step_jumps).
// The variant's state is the trade's with its asset's x and v replaced: each scenario's state is
// the one its own walk would reach, bit for bit. Jumps: whether the trade jumps, at compile time,
// so that a trade without jumps walks code with no trace of them (their draws and table reads
// cost the STAC-A2-style workload 9.5% when they were a run-time test; docs/benchmarks.md).
template <typename NormalStream, bool Jumps, typename Trade, typename Visit, typename Real = real_of<Trade>>
MCPRICE_HD MCPRICE_INLINE void walk_exercise_steps(const Trade& t, basic_asset_variant<Real> variant,
                                                   const basic_exercise_tables<Real>& tab, std::uint64_t key,
                                                   std::uint64_t subsequence, Visit&& visit)
{
  NormalStream rng(key, subsequence);
  normal_feeder<NormalStream, Real> normals{rng};
  [[maybe_unused]] jump_feeder<NormalStream> jump_draws{&rng};
  basic_exercise_state<Real> s{};
  basic_exercise_state<Real> s2{};
  const basic_exercise_asset<Real>* assets = tab.assets + t.first_asset;
  for (int a = 0; a < asset_count(t); ++a) s.v[a] = assets[a].v0;
  if (variant.other != nullptr) variant.v = tab.assets[variant.other->first_asset + variant.asset].v0;
  const Real* factor = tab.factors + t.first_factor;
  // Correlated normals y = A z (one asset: A = 1, and fma(1, z, 0) is z exactly).
  auto const correlated = [&](Real* y) {
    Real z[max_exercise_assets];
    for (int a = 0; a < asset_count(t); ++a) z[a] = normals.next();
    for (int a = 0; a < asset_count(t); ++a) {
      Real acc = Real(0);
      for (int j = 0; j < asset_count(t); ++j) acc = math::fma(factor[a * asset_count(t) + j], z[j], acc);
      y[a] = acc;
    }
  };
  // Local-vol assets read their grids at the substep's start; their steps carry the real dt.
  Real clock = Real(0);
  for (int d = 0; d < t.dates; ++d) {
    Real y[max_exercise_assets];
    if (t.heston) {
      for (int k = 0; k < t.substeps; ++k) {
        Real z_v[max_exercise_assets];
        for (int a = 0; a < asset_count(t); ++a) z_v[a] = normals.next();
        correlated(y);
        const basic_heston_step<Real>* hs =
            tab.heston + t.first_step + static_cast<std::int64_t>(d * t.substeps + k) * asset_count(t);
        Real step_dt = Real(0);
        for (int a = 0; a < asset_count(t); ++a) {
          Real dx = Real(0);
          Real var = Real(0);
          if (assets[a].surface.times > 0) {
            Real const sigma = local_vol_at(assets[a].surface, tab.surfaces, clock, s.x[a]);
            dx = local_vol_increment(sigma, hs[a].log_forward, hs[a].dt, math::sqrt(hs[a].dt), y[a], var);
            step_dt = hs[a].dt;
          } else {
            heston_qe_step(assets[a].xi, hs[a], s.v[a], basic_qe_normal_draw<Real>{z_v[a]}, y[a], dx, var);
          }
          s.x[a] += dx;
        }
        clock += step_dt;
        if (variant.other != nullptr) {
          int const a = variant.asset;
          const basic_heston_step<Real>* hs2 =
              tab.heston + variant.other->first_step + static_cast<std::int64_t>(d * t.substeps + k) * asset_count(t);
          Real dx = Real(0);
          Real var_integral = Real(0);
          heston_qe_step(tab.assets[variant.other->first_asset + a].xi, hs2[a], variant.v, basic_qe_normal_draw<Real>{z_v[a]}, y[a],
                         dx, var_integral);
          variant.x += dx;
        }
        if constexpr (Jumps) add_step_jumps(t, tab, std::int64_t{d} * t.substeps + k, jump_draws, s, variant);
      }
    } else {
      correlated(y);
      for (int a = 0; a < asset_count(t); ++a) {
        basic_exercise_gbm_step<Real> const g = tab.gbm[t.first_step + d * asset_count(t) + a];
        s.x[a] += math::fma(g.vol, y[a], g.drift);
      }
      if (variant.other != nullptr) {
        basic_exercise_gbm_step<Real> const g =
            tab.gbm[variant.other->first_step + d * asset_count(t) + variant.asset];
        variant.x += math::fma(g.vol, y[variant.asset], g.drift);
      }
      if constexpr (Jumps) add_step_jumps(t, tab, d, jump_draws, s, variant);
    }
    s.grow(asset_count(t));
    if (variant.other != nullptr) {
      s2 = s;
      s2.x[variant.asset] = variant.x;
      s2.v[variant.asset] = variant.v;
      s2.grow(asset_count(t));
    }
    if (visit(d, s, s2)) return;
  }
}

// The normal stream of a launch none of whose trades jumps (exercise_tables::jump_counts null):
// the walk compiled for it has no jump code at all, so such a request runs kernels sized without
// it (both walks inlined into one kernel cost the STAC-A2-style workload 5%; docs/benchmarks.md).
// The draws are NormalStream's: the same bits.
template <typename NormalStream>
struct jumpless_stream : NormalStream {
  using NormalStream::NormalStream;
};

template <typename NormalStream>
inline constexpr bool may_jump = true;
template <typename NormalStream>
inline constexpr bool may_jump<jumpless_stream<NormalStream>> = false;

template <typename NormalStream, typename Trade, typename Visit, typename Real = real_of<Trade>>
MCPRICE_HD MCPRICE_INLINE void walk_exercise_paths(const Trade& t, basic_asset_variant<Real> variant,
                                                   const basic_exercise_tables<Real>& tab, std::uint64_t key,
                                                   std::uint64_t subsequence, Visit&& visit)
{
  if constexpr (may_jump<NormalStream>) {
    if (t.jumps) {
      walk_exercise_steps<NormalStream, true>(t, variant, tab, key, subsequence, visit);
      return;
    }
  }
  walk_exercise_steps<NormalStream, false>(t, variant, tab, key, subsequence, visit);
}

template <typename NormalStream, typename Trade, typename Visit, typename Real = real_of<Trade>>
MCPRICE_HD MCPRICE_INLINE void walk_exercise_path(const Trade& t, const basic_exercise_tables<Real>& tab,
                                                  std::uint64_t key, std::uint64_t subsequence, Visit&& visit)
{
  using state = basic_exercise_state<Real>;
  walk_exercise_paths<NormalStream>(t, basic_asset_variant<Real>{nullptr, 0, Real(0), Real(0)}, tab, key,
                                    subsequence, [&](int d, const state& s, const state&) { return visit(d, s); });
}

// What a trade (or scenario) sees at a state, from one pass over its weighted spots w_i S_i(t)
// (each leg of a Greek walk does this at every date: no array of them stored and read back for
// the payoff and again for the basis): what exercising pays (undiscounted) and what the basis
// takes of the spots. The payoff's and the basis' values are those of their own loops over the
// weighted spots, bit for bit: the same operations in the same order.
template <typename Real>
struct basic_leg_view {
  Real intrinsic;
  Real hi;          // the largest weighted spot (spreads: the first leg; one asset: its spot)
  Real lo;          // the smallest (spreads: the last leg)
  Real scaled_sum;  // GBM baskets: the weighted spots / norm summed in asset order (the mean's)
};
using leg_view = basic_leg_view<float>;

template <typename Trade, typename Real = real_of<Trade>>
MCPRICE_HD MCPRICE_INLINE basic_leg_view<Real> view_at(const Trade& t, const basic_exercise_asset<Real>* assets,
                                                       const basic_exercise_state<Real>& s)
{
  int const n = asset_count(t);
  bool const scaled = !t.variance_basis && n > 1;
  Real first = Real(0);
  Real last = Real(0);
  Real hi = Real(0);
  Real lo = Real(0);
  Real sum = Real(0);         // the basket: from zero, in asset order
  Real spread = Real(0);      // the spread: the first leg less the others
  Real scaled_sum = Real(0);  // kept in step with sum, each spot divided first
  auto const pass = [&](auto&& weighted) {
    Real const w0 = weighted(0);
    first = hi = lo = last = w0;
    sum += w0;
    spread += w0;
    if (scaled) scaled_sum += w0 / t.norm;
    for (int i = 1; i < n; ++i) {
      Real const w = weighted(i);
      hi = math::fmax(hi, w);
      lo = math::fmin(lo, w);
      last = w;
      sum += w;
      spread += -w;
      if (scaled) scaled_sum += w / t.norm;
    }
  };
  // 1 x S is S exactly: unit weights skip a load and a multiply per asset.
  if (t.unit_weights) {
    pass([&](int i) { return rounded_product(assets[i].spot, s.growth[i]); });
  } else {
    pass([&](int i) { return rounded_product(assets[i].weight, rounded_product(assets[i].spot, s.growth[i])); });
  }
  bool const two_legs = t.payoff == basket_payoff::spread;
  Real const agg = t.payoff == basket_payoff::basket    ? sum
                   : two_legs                           ? spread
                   : t.payoff == basket_payoff::best_of ? hi
                                                        : lo;
  basic_leg_view<Real> l;
  l.intrinsic = payoff_of_aggregate(t, agg);
  l.hi = two_legs ? first : hi;
  l.lo = two_legs ? last : lo;
  l.scaled_sum = scaled_sum;
  return l;
}

// What exercising pays at a state (undiscounted).
template <typename Trade, typename Real = real_of<Trade>>
MCPRICE_HD MCPRICE_INLINE Real exercise_value(const Trade& t, const basic_exercise_asset<Real>* assets,
                                              const basic_exercise_state<Real>& s)
{
  return view_at(t, assets, s).intrinsic;
}

template <typename Real>
struct european_terms {
  Real log_growth;  // ln(F(T)/F(t_d))
  Real vol_left;    // sqrt(w(T) - w(t_d))
  Real discount;    // P(0, t_d): the decision's (a scenario's own pays its cash flows)
  Real maturity_discount;
};

// A GBM vanilla's European terms at date d: entries first_left + d ({log_growth, vol_left}) and
// first_left + dates + d ({discount, maturity_discount}) of the step table.
template <typename Real>
MCPRICE_HD MCPRICE_INLINE european_terms<Real> european_terms_at(const basic_exercise_trade<Real>& t,
                                                               const basic_exercise_tables<Real>& tab, int d)
{
  basic_exercise_gbm_step<Real> const a = tab.gbm[t.first_left + d];
  basic_exercise_gbm_step<Real> const b = tab.gbm[t.first_left + t.dates + d];
  return {a.drift, a.vol, b.drift, b.vol};
}

// The European value, discounted to today, of what is left of a GBM vanilla (european_floor)
// at date d with spot S there: Black's formula on the forward to maturity and the vol left of the
// trade's market (a Greek scenario's too: its bumped inputs move the paths, not the policy;
// bumping the policy with them moved vega 16% and rho 18% off a tree's).
template <typename Trade, typename Real = real_of<Trade>>
MCPRICE_HD MCPRICE_INLINE Real european_value_left(const Trade& t, const basic_exercise_tables<Real>& tab, int d,
                                                   Real spot)
{
  european_terms<Real> const e = european_terms_at(t, tab, d);
  Real const forward = rounded_product(spot, math::exp(e.log_growth));
  Real const sd = e.vol_left;
  Real value = Real(0);
  if (!(sd > Real(0)) || !(t.strike > Real(0))) {
    value = math::fmax(t.call ? forward - t.strike : t.strike - forward, Real(0));
  } else {
    Real const d1 = math::fma(Real(0.5), sd, math::log(forward / t.strike) / sd);
    Real const d2 = d1 - sd;
    value = t.call ? rounded_product(forward, math::standard_normal_cdf(d1)) -
                         rounded_product(t.strike, math::standard_normal_cdf(d2))
                   : rounded_product(t.strike, math::standard_normal_cdf(-d2)) -
                         rounded_product(forward, math::standard_normal_cdf(-d1));
  }
  return rounded_product(math::fmax(value, Real(0)), e.maturity_discount);
}

// Where a GBM vanilla's basis array carries the European value of the rest (european_floor),
// beside its basis functions rather than among them: the regression fits the premium over it.
inline constexpr int european_basis_slot = 4;

// Basis functions of the continuation value at date d's state, phi[0..t.basis). Single asset: 1,
// y, y^2, y^3 with y = S / norm (Heston adds w, w y, w^2 with w = v / v_norm; a GBM vanilla
// carries its European value of the rest, discounted to today, in phi[european_basis_slot]: a
// cubic alone missed the continuation by a few cents, more than holding is worth over
// exercising when r < q; as a fifth function it made the fit ill-conditioned, and Greeks then
// moved with an ulp of the basis). Several assets: the
// largest and smallest scaled spots h and l (spreads: the two legs), their squares and product,
// the exercise value p / norm and its square and cube, and the mean scaled spot (Heston: the
// mean variance / v_norm).
// (A single asset's weight is 1: its weighted spot is S(t) exactly.)
template <typename Trade, typename Real = real_of<Trade>>
MCPRICE_HD MCPRICE_INLINE void exercise_basis(const Trade& t, const basic_exercise_tables<Real>& tab, int d,
                                              const basic_exercise_state<Real>& s, const basic_leg_view<Real>& l,
                                              Real* phi)
{
  phi[0] = Real(1);
  if (asset_count(t) == 1) {
    Real const y = l.hi / t.norm;
    phi[1] = y;
    phi[2] = rounded_product(y, y);
    phi[3] = rounded_product(phi[2], y);
    if (t.variance_basis) {
      Real const w = s.v[0] / t.v_norm;
      phi[4] = w;
      phi[5] = rounded_product(w, y);
      phi[6] = rounded_product(w, w);
    }
    if (t.european_floor) phi[european_basis_slot] = european_value_left(t, tab, d, l.hi);
    return;
  }
  // The extremes of the weighted spots, scaled: a correctly rounded division by norm > 0 keeps
  // the order, so these are the extremes of the scaled spots bit for bit (two divisions a leg
  // and date, not one an asset).
  Real const hi = l.hi / t.norm;
  Real const lo = l.lo / t.norm;
  Real const p = l.intrinsic / t.norm;
  phi[1] = hi;
  phi[2] = lo;
  phi[3] = rounded_product(hi, hi);
  phi[4] = rounded_product(lo, lo);
  phi[5] = rounded_product(hi, lo);
  phi[6] = p;
  phi[7] = rounded_product(p, p);
  phi[8] = rounded_product(phi[7], p);
  if (t.variance_basis) {
    // Heston: the mean variance in place of the mean spot (the stochastic vols matter more).
    phi[9] = s.v_sum / (static_cast<Real>(asset_count(t)) * t.v_norm);
  } else {
    phi[9] = l.scaled_sum / static_cast<Real>(asset_count(t));
  }
}

// Basis functions per kind of trade.
MCPRICE_HD MCPRICE_INLINE constexpr int exercise_basis_size(int assets, bool variance_basis)
{
  return assets > 1 ? 10 : variance_basis ? 7 : 4;
}

// Where date d's coefficients start in the coefficient table (t's own, or its trade's for a
// Greek scenario).
template <typename Real>
MCPRICE_HD MCPRICE_INLINE std::int64_t coefficient_offset(const basic_exercise_trade<Real>& t, int d)
{
  return static_cast<std::int64_t>(t.first_coefficient + d) * max_exercise_basis;
}

// The European value of the rest that exercise_basis put beside a GBM vanilla's basis, else 0.
template <typename Real>
MCPRICE_HD MCPRICE_INLINE Real european_part(const basic_exercise_trade<Real>& t, const Real* phi)
{
  return t.european_floor ? phi[european_basis_slot] : Real(0);
}

// The regressed continuation value (discounted to today) at a state with basis phi: the European
// part, then the fit summed in basis order. Unrolled over the largest basis so that phi stays in
// registers.
template <typename Real>
MCPRICE_HD MCPRICE_INLINE Real continuation_value(const basic_exercise_trade<Real>& t, const Real* beta, const Real* phi)
{
  Real c = european_part(t, phi);
  MCPRICE_UNROLL
  for (int i = 0; i < max_exercise_basis; ++i) {
    if (i < t.basis) c += rounded_product(beta[i], phi[i]);
  }
  return c;
}

// Whether exercising for `exercise_value` (discounted to today) pays at least the European value
// of the rest, read from the basis (always true without european_floor). Where early exercise
// is almost never optimal (puts with r < q) the continuation exceeds the exercise value by less
// than a cubic's fit error, and the regressed policy alone exercised paths it should hold
// (docs/early_exercise.md).
template <typename Trade, typename Real = real_of<Trade>>
MCPRICE_HD MCPRICE_INLINE bool beats_european_value(const Trade& t, const Real* phi, Real exercise_value)
{
  return !t.european_floor || exercise_value >= phi[european_basis_slot];
}

// Whether a path exercises at date d (not maturity) under the date's discount factor and
// coefficients: in the money, worth at least its continuation and, with european_floor, at least
// the European value of the rest. Exercise values are compared discounted to today, like the
// regression's targets.
template <typename Trade, typename Real = real_of<Trade>>
MCPRICE_HD MCPRICE_INLINE bool exercises_under(const Trade& t, const basic_exercise_tables<Real>& tab, int d,
                                               Real discount, const Real* beta, const basic_exercise_state<Real>& s,
                                               const basic_leg_view<Real>& l)
{
  if (!(l.intrinsic > Real(0))) return false;
  // Zeroed: continuation_value reads only the basis that exercise_basis fills, which the host
  // compiler cannot see (it warned, -Wmaybe-uninitialized, 45 times a build).
  Real phi[max_exercise_basis]{};
  exercise_basis(t, tab, d, s, l, phi);
  // A GBM vanilla's Greek scenario weighs the exercise value by its trade's discount factor, as
  // the trade does: with its own, a rate bump moved the boundary (rho's std error 30x).
  Real const value =
      rounded_product(l.intrinsic, t.european_floor ? european_terms_at(t, tab, d).discount : discount);
  return value >= continuation_value(t, beta, phi) && beats_european_value(t, phi, value);
}

template <typename Trade, typename Real = real_of<Trade>>
MCPRICE_HD MCPRICE_INLINE bool exercises_at(const Trade& t, const basic_exercise_tables<Real>& tab, int d,
                                            const basic_exercise_state<Real>& s, const basic_leg_view<Real>& l)
{
  return exercises_under(t, tab, d, tab.discounts[t.first_date + d], tab.coefficients + coefficient_offset(t, d), s,
                         l);
}

// Whether a path stops at a date, at maturity (`last`) or by exercising under the date's
// discount factor and coefficients; its cash flow, discounted to today, then goes to `value`.
template <typename Trade, typename Real = real_of<Trade>>
MCPRICE_HD MCPRICE_INLINE bool stops_under(const Trade& t, const basic_exercise_tables<Real>& tab, int d, bool last,
                                           Real discount, const Real* beta, const basic_exercise_state<Real>& s,
                                           const basic_leg_view<Real>& l, Real& value)
{
  if (!last && !exercises_under(t, tab, d, discount, beta, s, l)) return false;
  value = rounded_product(l.intrinsic, discount);
  return true;
}

// Whether a path of trade (or scenario) t stops at date d, at maturity or by exercising; its cash
// flow, discounted to today, then goes to `value`.
template <typename Trade, typename Real = real_of<Trade>>
MCPRICE_HD MCPRICE_INLINE bool stops_at(const Trade& t, const basic_exercise_tables<Real>& tab, int d,
                                        const basic_exercise_state<Real>& s, Real& value)
{
  return stops_under(t, tab, d, d + 1 >= t.dates, tab.discounts[t.first_date + d],
                     tab.coefficients + coefficient_offset(t, d), s, view_at(t, tab.assets + t.first_asset, s), value);
}

// One pricing path: its cash flow, discounted to today, under the calibrated policy.
template <typename NormalStream, typename Trade, typename Real = real_of<Trade>>
MCPRICE_HD MCPRICE_INLINE Real exercise_sample(const Trade& t, const basic_exercise_tables<Real>& tab,
                                               std::uint64_t subsequence)
{
  Real value = Real(0);
  walk_exercise_path<NormalStream>(
      t, tab, t.key, subsequence, [&](int d, const basic_exercise_state<Real>& s) { return stops_at(t, tab, d, s, value); });
  return value;
}

inline constexpr int exercise_normals_per_sample = own_subsequence_normals;

template <typename NormalStream, typename Real>
MCPRICE_HD MCPRICE_INLINE moments exercise_lane(const basic_exercise_trade<Real>& t, const basic_exercise_tables<Real>& tab,
                                                std::int64_t block, int lane)
{
  // One asset sized only: the GPU's pricing kernel has one register budget for every trade.
  return with_one_asset_sized(t, [&](const auto& sized) {
    return own_subsequence_lane(t.samples, block, lane, [&](std::uint64_t subsequence) {
      return exercise_sample<NormalStream>(sized, tab, subsequence);
    });
  });
}

// ---- Greeks: central differences under the calibrated policy -------------------------------

// A Greek's per-path combination of scenarios (the trade with bumped inputs, each reading the
// trade's own coefficients: the policy is held, as first-order sensitivities allow), all
// walking the same normals: sum_k weight_k x value_k, whose sample mean and std error are the
// difference's.
inline constexpr int max_combination_legs = 4;

struct exercise_combination {
  std::int64_t samples;
  std::int64_t first_block;
  std::int32_t legs;
  std::int32_t shared_path;                     // the legs differ in spots only: one walk serves them all
  std::int32_t scenario[max_combination_legs];  // into the scenario table
  float weight[max_combination_legs];
  // The GPU's walk group (exercise_walk_group) or -1, and where each leg sits in its legs.
  std::int32_t group;
  std::int32_t group_leg[max_combination_legs];
  // Two legs that differ only in this asset's own inputs (vega), walked as one path with that
  // asset stepped for each (asset_variant); -1: each leg walks on its own.
  std::int32_t variant_asset;
};

// The legs' values combined into the combination's per-path value, in leg order. The weights
// (+-1, -2) are exact in either precision.
template <typename Real>
MCPRICE_HD MCPRICE_INLINE Real combined_value(const exercise_combination& c, const Real* value,
                                              const std::int32_t* leg_of)
{
  Real v = Real(0);
  for (int k = 0; k < c.legs; ++k) v += rounded_product(static_cast<Real>(c.weight[k]), value[leg_of[k]]);
  return v;
}

// Legs that differ only in today's spots share their log-spot paths (x = ln(S/S0) does not
// depend on S0 under GBM or Heston): one walk, each leg deciding on its own spots. Each leg's
// value is the one its own walk would give, bit for bit.
MCPRICE_HD MCPRICE_INLINE int lowest_bit(std::uint64_t m)
{
#if defined(__CUDA_ARCH__)
  return __ffsll(static_cast<long long>(m)) - 1;
#else
  return __builtin_ctzll(m);
#endif
}

// The values of `legs` scenarios (scenario[0..legs), at most 64) that walk `first`'s log-spot
// path, each deciding on its own spots, from one walk: value[k] is scenario[k]'s own walk's.
// The legs are spot scenarios of one trade (same_decisions: records equal but for their asset
// tables), so a date's discount factor and coefficients are read once for all of them, and a
// leg reads only its spots: the same operations as each leg's stops_at.
template <typename NormalStream, typename Trade, typename Real = real_of<Trade>>
MCPRICE_HD MCPRICE_INLINE void shared_walk_values(const Trade& first, const std::int32_t* scenario, int legs,
                                                  const basic_exercise_tables<Real>& tab, std::uint64_t subsequence,
                                                  Real* value)
{
  std::uint64_t left = legs >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << legs) - 1;
  walk_exercise_path<NormalStream>(first, tab, first.key, subsequence, [&](int d, const basic_exercise_state<Real>& s) {
    bool const last = d + 1 >= first.dates;
    Real const discount = tab.discounts[first.first_date + d];
    const Real* beta = tab.coefficients + coefficient_offset(first, d);
    for (std::uint64_t open = left; open != 0; open &= open - 1) {
      int const k = lowest_bit(open);
      const basic_exercise_asset<Real>* spots = tab.assets + tab.scenarios[scenario[k]].first_asset;
      if (stops_under(first, tab, d, last, discount, beta, s, view_at(first, spots, s), value[k]))
        left &= ~(std::uint64_t{1} << k);
    }
    return left == 0;
  });
}

template <typename NormalStream, typename Trade, typename Real = real_of<Trade>>
MCPRICE_HD MCPRICE_INLINE void shared_path_values(const Trade& first, const exercise_combination& c,
                                                  const basic_exercise_tables<Real>& tab, std::uint64_t subsequence,
                                                  Real* value)
{
  shared_walk_values<NormalStream>(first, c.scenario, c.legs, tab, subsequence, value);
}

// The two legs of a variant pair (vega) from one walk: each leg's value is its own walk's.
template <typename NormalStream, typename Trade, typename Real = real_of<Trade>>
MCPRICE_HD MCPRICE_INLINE void variant_pair_values(const Trade& first, const exercise_combination& c,
                                                   const basic_exercise_tables<Real>& tab, std::uint64_t subsequence,
                                                   Real* value)
{
  const basic_exercise_trade<Real>& other = tab.scenarios[c.scenario[1]];
  auto const second = same_kind(first, other);
  bool done[2] = {false, false};
  walk_exercise_paths<NormalStream>(
      first, basic_asset_variant<Real>{&other, c.variant_asset, Real(0), Real(0)}, tab, first.key, subsequence,
      [&](int d, const basic_exercise_state<Real>& s, const basic_exercise_state<Real>& s2) {
        if (!done[0]) done[0] = stops_at(first, tab, d, s, value[0]);
        if (!done[1]) done[1] = stops_at(second, tab, d, s2, value[1]);
        return done[0] && done[1];
      });
}

template <typename NormalStream, int Assets = 0, typename Real>
MCPRICE_HD MCPRICE_INLINE moments combination_lane(const exercise_combination& c,
                                                   const basic_exercise_tables<Real>& tab, std::int64_t block, int lane)
{
  return with_trade_sized_for<Assets>(tab.scenarios[c.scenario[0]], [&](const auto& first) {
    return own_subsequence_lane(c.samples, block, lane, [&](std::uint64_t subsequence) {
      Real value[max_combination_legs] = {};
      if (c.shared_path) {
        shared_path_values<NormalStream>(first, c, tab, subsequence, value);
      } else if (c.variant_asset >= 0) {
        variant_pair_values<NormalStream>(first, c, tab, subsequence, value);
      } else {
        for (int k = 0; k < c.legs; ++k) {
          value[k] = exercise_sample<NormalStream>(same_kind(first, tab.scenarios[c.scenario[k]]), tab, subsequence);
        }
      }
      constexpr std::int32_t in_order[max_combination_legs] = {0, 1, 2, 3};
      return combined_value(c, value, in_order);
    });
  });
}

// ---- Greeks on the GPU: the spot legs of several combinations in one walk ------------------

// Combinations whose legs all share one log-spot path (shared_path, the same walk inputs: the
// delta, gamma and cross-gamma scenarios of a trade) walk it once for all of their legs; each
// leg decides on its own spots exactly as in shared_path_values, so every combination's per-path
// value, and so its sums, keep their bits. A group's legs fit one 64-bit mask.
inline constexpr int max_group_legs = 64;
inline constexpr int max_group_members = 32;

struct exercise_walk_group {
  std::int32_t members;
  std::int32_t legs;
  std::int32_t member[max_group_members];  // into the combination table, in order
  std::int32_t scenario[max_group_legs];   // into the scenario table; the first one walks
};

// Every leg's value (discounted cash flow) on path `subsequence` of the group's walk.
template <typename NormalStream, typename Trade, typename Real = real_of<Trade>>
MCPRICE_HD MCPRICE_INLINE void group_leg_values(const Trade& first, const exercise_walk_group& g,
                                                const basic_exercise_tables<Real>& tab, std::uint64_t subsequence,
                                                Real* value)
{
  shared_walk_values<NormalStream>(first, g.scenario, g.legs, tab, subsequence, value);
}

// ---- Calibration: stored paths, cash flows and the normal equations, per date --------------

// A calibration block: one path per lane (subsequence block * lanes + lane of the calibration
// key). Stored floats per path and date: the assets' log spots, then (Heston) their variances.
inline constexpr int calibration_paths_per_block = layout::lanes_per_block;

template <typename Real>
MCPRICE_HD MCPRICE_INLINE int exercise_rows_per_date(const basic_exercise_trade<Real>& t)
{
  return t.heston ? 2 * t.assets : t.assets;
}

// Floats a calibration path stores.
template <typename Real>
MCPRICE_HD MCPRICE_INLINE int calibration_rows(const basic_exercise_trade<Real>& t)
{
  return t.dates * exercise_rows_per_date(t);
}

// The family's path scratch is trade by trade (each trade's blocks take exactly its rows), then
// block, row (date-major), lane; a job holds the stretch of its blocks:
// paths[t.calibration_offset + (block * rows(t) + row) * lanes + lane - job_first_float];
// cash flows[(family block - job_first_block) * lanes + lane].
// (Real: the paths' precision; "floats" counts Reals.)
template <typename Real>
struct basic_calibration_view {
  Real* paths;
  Real* cash_flows;
  std::int64_t job_first_block;  // within the family's calibration blocks
  std::int64_t job_first_float;  // the family path-scratch offset of the job's first block
};
using calibration_view = basic_calibration_view<float>;

template <typename Real>
MCPRICE_HD MCPRICE_INLINE std::int64_t path_row_index(const basic_exercise_trade<Real>& t,
                                                      const basic_calibration_view<Real>& v, std::int64_t block,
                                                      int row, int lane)
{
  return t.calibration_offset + (block * calibration_rows(t) + row) * calibration_paths_per_block + lane -
         v.job_first_float;
}

// Simulates calibration path `lane` of the trade's calibration block `block` (within the
// trade; `family_block` within the family), storing its state at every date and its cash flow at
// maturity (discounted to today).
template <typename NormalStream, typename Trade, typename Real = real_of<Trade>>
MCPRICE_HD MCPRICE_INLINE void simulate_calibration_path(const Trade& t, const basic_exercise_tables<Real>& tab,
                                                         const basic_calibration_view<Real>& v, std::int64_t block,
                                                         std::int64_t family_block, int lane)
{
  std::int64_t const path = block * calibration_paths_per_block + lane;
  if (path >= t.calibration_samples) return;
  int const per_date = exercise_rows_per_date(t);
  const basic_exercise_asset<Real>* assets = tab.assets + t.first_asset;
  walk_exercise_path<NormalStream>(
      t, tab, t.calibration_key, static_cast<std::uint64_t>(path), [&](int d, const basic_exercise_state<Real>& s) {
        for (int a = 0; a < asset_count(t); ++a) {
          v.paths[path_row_index(t, v, block, d * per_date + a, lane)] = s.x[a];
        }
        for (int a = 0; t.heston && a < asset_count(t); ++a) {
          v.paths[path_row_index(t, v, block, d * per_date + asset_count(t) + a, lane)] = s.v[a];
        }
        if (d + 1 == t.dates) {
          v.cash_flows[(family_block - v.job_first_block) * calibration_paths_per_block + lane] =
              rounded_product(exercise_value(t, assets, s), tab.discounts[t.first_date + d]);
        }
        return false;
      });
}

// The normal equations of one date (or, past the trade's last regression, the cash flows'
// totals: today's continuation value), summed in double.
struct regression_sums {
  double xx[regression_matrix_entries];  // upper triangle of sum phi phi^T, row by row
  double xy[max_exercise_basis];         // sum phi * cash flow
  double in_the_money;                   // paths in the regression
  double total;                          // sum of all paths' cash flows
  double total_sq;

  MCPRICE_HD MCPRICE_INLINE regression_sums& operator+=(const regression_sums& o)
  {
    for (int i = 0; i < regression_matrix_entries; ++i) xx[i] += o.xx[i];
    for (int i = 0; i < max_exercise_basis; ++i) xy[i] += o.xy[i];
    in_the_money += o.in_the_money;
    total += o.total;
    total_sq += o.total_sq;
    return *this;
  }
};

inline constexpr int regression_doubles = static_cast<int>(sizeof(regression_sums) / sizeof(double));

// The sums split by what they depend on. The basis' products and the count in the money depend
// only on the stored paths: `fixed`, summed for every date at once after the paths are
// simulated. The basis times the cash flow and the cash flows' totals depend on the decisions
// at later dates: `moving`, summed at each backward step. Each component goes through the same
// tree whichever part sums it, so the parts joined are the whole's bits.
enum class sums_part { all, fixed, moving };

inline constexpr int regression_fixed_doubles = regression_matrix_entries + 1;
inline constexpr int regression_moving_doubles = max_exercise_basis + 2;

template <sums_part P>
inline constexpr int part_doubles = P == sums_part::all     ? regression_doubles
                                    : P == sums_part::fixed ? regression_fixed_doubles
                                                            : regression_moving_doubles;

// Where slot k of a part lies in regression_sums (as doubles, in declaration order).
template <sums_part P>
MCPRICE_HD MCPRICE_INLINE constexpr int part_component(int k)
{
  constexpr int xy = regression_matrix_entries;
  constexpr int count = xy + max_exercise_basis;
  if (P == sums_part::all) return k;
  if (P == sums_part::fixed) return k < regression_matrix_entries ? k : count;
  return k < max_exercise_basis ? xy + k : count + 1 + (k - max_exercise_basis);
}

// A part's slots, in order, into their places in the sums.
template <sums_part P>
MCPRICE_HD MCPRICE_INLINE void place_part(const double* slots, regression_sums& sums)
{
  auto* const to = reinterpret_cast<double*>(&sums);
  for (int k = 0; k < part_doubles<P>; ++k) to[part_component<P>(k)] = slots[k];
}

// The regression date of backward step `step` (0: the date before maturity), or -1 when the trade
// has no regression at that step (then step == regressions(t) sums the totals).
template <typename Real>
MCPRICE_HD MCPRICE_INLINE int regressions(const basic_exercise_trade<Real>& t)
{
  return t.dates - 1;
}
template <typename Real>
MCPRICE_HD MCPRICE_INLINE int regression_date(const basic_exercise_trade<Real>& t, int step)
{
  return t.dates - 2 - step;
}

// visit(state) with path `lane` of the trade's calibration block `block` at date d, from scratch.
template <typename Trade, typename Visit, typename Real = real_of<Trade>>
MCPRICE_HD MCPRICE_INLINE void with_stored_state(const Trade& t, const basic_calibration_view<Real>& v,
                                                 std::int64_t block, int lane, int d, Visit&& visit)
{
  basic_exercise_state<Real> s{};
  int const per_date = exercise_rows_per_date(t);
  for (int a = 0; a < asset_count(t); ++a) s.x[a] = v.paths[path_row_index(t, v, block, d * per_date + a, lane)];
  for (int a = 0; t.heston && a < asset_count(t); ++a)
    s.v[a] = v.paths[path_row_index(t, v, block, d * per_date + asset_count(t) + a, lane)];
  s.grow(asset_count(t));
  visit(s);
}

// What a calibration path brings to backward step `step`'s sums: its cash flow (discounted to
// today) and, at a regression date where it is in the money, its basis functions.
template <typename Real>
struct basic_regression_terms {
  Real phi[max_exercise_basis];
  // The cash flow; at a regression, the regression's target: a GBM vanilla's less its European
  // part (the fit is the premium over it), set by basis_terms.
  double cash_flow;
  bool live;          // a path of the trade, at a step the trade has
  bool in_the_money;  // in the regression (never at the totals' step)
};
using regression_terms = basic_regression_terms<float>;

// The basis functions of path `lane` of the trade's calibration block `block` at step `step`'s
// regression date, where it is in the money there (and a GBM vanilla's target less its European
// part); returns its intrinsic value there.
template <typename Trade, typename Real = real_of<Trade>>
MCPRICE_HD MCPRICE_INLINE Real basis_terms(const Trade& t, const basic_exercise_tables<Real>& tab,
                                           const basic_calibration_view<Real>& v, std::int64_t block, int lane,
                                           int step, basic_regression_terms<Real>& r)
{
  Real intrinsic = Real(0);
  with_stored_state(t, v, block, lane, regression_date(t, step), [&](const basic_exercise_state<Real>& s) {
    basic_leg_view<Real> const l = view_at(t, tab.assets + t.first_asset, s);
    intrinsic = l.intrinsic;
    if (!(l.intrinsic > Real(0))) return;
    exercise_basis(t, tab, regression_date(t, step), s, l, r.phi);
    r.cash_flow -= static_cast<double>(european_part(t, r.phi));
    r.in_the_money = true;
  });
  return intrinsic;
}

// A calibration path's backward step `step`: first the exercise decisions of steps
// [from_step, step) (their coefficients known) update its cash flow, then its terms of step
// `step`'s sums. A job whose paths stay in scratch calls this with from_step = step - 1; a job
// that re-simulated its paths with from_step = 0: the same decisions in the same order, hence the
// same bits.
template <typename Trade, typename Real = real_of<Trade>>
MCPRICE_HD MCPRICE_INLINE basic_regression_terms<Real> backward_terms(const Trade& t,
                                                                      const basic_exercise_tables<Real>& tab,
                                                                      const basic_calibration_view<Real>& v,
                                                                      std::int64_t block, std::int64_t family_block,
                                                                      int lane, int from_step, int step)
{
  basic_regression_terms<Real> r{};
  std::int64_t const path = block * calibration_paths_per_block + lane;
  if (path >= t.calibration_samples || step > regressions(t)) return r;
  r.live = true;
  const basic_exercise_asset<Real>* assets = tab.assets + t.first_asset;
  Real& cash = v.cash_flows[(family_block - v.job_first_block) * calibration_paths_per_block + lane];
  Real cf = cash;
  for (int k = from_step; k < step; ++k) {
    int const d = regression_date(t, k);
    with_stored_state(t, v, block, lane, d, [&](const basic_exercise_state<Real>& s) {
      basic_leg_view<Real> const l = view_at(t, assets, s);
      if (exercises_at(t, tab, d, s, l)) cf = rounded_product(l.intrinsic, tab.discounts[t.first_date + d]);
    });
  }
  cash = cf;
  r.cash_flow = cf;
  if (step == regressions(t)) return r;
  basis_terms(t, tab, v, block, lane, step, r);
  return r;
}

// What a calibration path carries from one backward step to the next where one thread owns it
// throughout (the GPU's one-launch calibration kernel): its cash flow, and what its decision at
// the date just regressed needs once that date's coefficients are solved: the basis and exercise value computed for the
// regression, the very values exercises_at would recompute from the stored state. A step then
// loads one date's state and forms one view and one basis, where the per-step kernels form two.
struct carried_path {
  float cash_flow;
  float exercise_value;  // intrinsic x the date's discount
  float phi[max_exercise_basis];
  bool in_the_money;
};

// Backward step `step` of a path carried from step `step - 1` (c: zero but its cash flow at
// maturity before step 0): the decision at the previous step's date, then the terms of this
// step's sums; backward_terms' values with from_step = step - 1, bit for bit (host test).
template <typename Trade>
MCPRICE_HD MCPRICE_INLINE regression_terms carried_terms(const Trade& t, const exercise_tables& tab,
                                                         const calibration_view& v, std::int64_t block, int lane,
                                                         int step, carried_path& c)
{
  regression_terms r{};
  if (block * calibration_paths_per_block + lane >= t.calibration_samples || step > regressions(t)) return r;
  r.live = true;
  if (step > 0 && c.in_the_money &&
      c.exercise_value >=
          continuation_value(t, tab.coefficients + coefficient_offset(t, regression_date(t, step - 1)), c.phi) &&
      beats_european_value(t, c.phi, c.exercise_value)) {
    c.cash_flow = c.exercise_value;
  }
  r.cash_flow = c.cash_flow;
  c.in_the_money = false;
  if (step == regressions(t)) return r;
  float const intrinsic = basis_terms(t, tab, v, block, lane, step, r);
  if (!r.in_the_money) return r;
  c.in_the_money = true;
  c.exercise_value = rounded_product(intrinsic, tab.discounts[t.first_date + regression_date(t, step)]);
  for (int k = 0; k < max_exercise_basis; ++k) c.phi[k] = r.phi[k];
  return r;
}

// A calibration path's terms of step `step`'s fixed part: its basis functions where it is in the
// money (no cash flow: the fixed part never reads it).
template <typename Trade, typename Real = real_of<Trade>>
MCPRICE_HD MCPRICE_INLINE basic_regression_terms<Real> fixed_terms(const Trade& t, const basic_exercise_tables<Real>& tab,
                                                                   const basic_calibration_view<Real>& v,
                                                                   std::int64_t block, int lane, int step)
{
  basic_regression_terms<Real> r{};
  std::int64_t const path = block * calibration_paths_per_block + lane;
  if (path >= t.calibration_samples || step >= regressions(t)) return r;
  r.live = true;
  basis_terms(t, tab, v, block, lane, step, r);
  return r;
}

// The terms added to the sums: the totals at the trade's last step, else the normal equations'
// entries of a path in the money (xx packed row by row for the trade's basis).
template <typename Real>
MCPRICE_HD MCPRICE_INLINE void add_terms(const basic_exercise_trade<Real>& t, int step,
                                         const basic_regression_terms<Real>& r, regression_sums& out)
{
  if (!r.live) return;
  if (step == regressions(t)) {
    double const c = r.cash_flow;
    out.total += c;
    out.total_sq += c * c;
    return;
  }
  if (!r.in_the_money) return;
  double const y = r.cash_flow;
  int e = 0;
  for (int i = 0; i < t.basis; ++i) {
    double const pi = r.phi[i];
    for (int j = i; j < t.basis; ++j) out.xx[e++] += pi * static_cast<double>(r.phi[j]);
    out.xy[i] += pi * y;
  }
  out.in_the_money += 1.0;
}

template <typename Trade, typename Real = real_of<Trade>>
MCPRICE_HD MCPRICE_INLINE void backward_calibration_path(const Trade& t, const basic_exercise_tables<Real>& tab,
                                                         const basic_calibration_view<Real>& v, std::int64_t block,
                                                         std::int64_t family_block, int lane, int from_step, int step,
                                                         regression_sums& out)
{
  add_terms(t, step, backward_terms(t, tab, v, block, family_block, lane, from_step, step), out);
}

}  // namespace mcprice
