#pragma once
// Worst-of autocallables on several correlated GBM assets with term structures. Every step moves
// each asset exactly (its own drift and vol over the step; the normals correlated by the factor
// A, A A^T = C, as the baskets' are), and the autocallable path state of path_gbm.hpp follows
// the worst performance min_i S_i(t) / L_i, in log. A continuously monitored knock-in takes the
// Brownian bridge of the worst performance over the step with the variance of the asset that is
// worst at the step's end: exact for one asset; for several it misses an asset that dips below
// the level within a step and ends above the worst, a bias that shrinks with the step
// (docs/formats.md). A path that has been called stops: its remaining steps are not drawn.
#include "mcprice/kernels/models/basket_gbm.hpp"
#include "mcprice/kernels/models/path_gbm.hpp"

#include <cstdint>
#include <type_traits>

namespace mcprice {

// Bridged normals a step that the worst-of kernels' Sobol stream holds: --rng sobol prices
// worst-ofs of at most this many assets.
inline constexpr int worst_of_sobol_assets = 4;

// The autocallable fields of the path record (log_barrier 0: the state works in log performance
// already), and the assets. Grid rows: k x assets + i is asset i's step k (drift and vol; every
// row of a step carries its hit_value and fixing byte), then the observation rows.
template <typename Real>
struct basic_worst_of_trade : basic_path_gbm_trade<Real> {
  std::int32_t assets;
  std::int32_t first_asset;   // into the initial-level table: ln(L_i / S_i(0)) per asset
  std::int32_t first_factor;  // into the factor table: assets x assets, row-major (with Greeks,
                              // then the factors of the correlations +h and -h)
  std::uint8_t greeks;        // with Greeks (worst_of_greeks.hpp): the Greek rows are set
};
using worst_of_trade = basic_worst_of_trade<float>;

// A side's worst log performance after a step, and the variance of the worst asset's step.
template <typename Real>
struct worst_of_step {
  Real x;
  Real var;
};

// Steps the assets x[i] of one side (sign -1: the antithetic side) with correlated normals y.
template <typename Real>
MCPRICE_HD MCPRICE_INLINE worst_of_step<Real> step_worst_of(int n, const basic_path_step<Real>* rows,
                                                            const Real* log_initial, const Real* y, Real sign, Real* x)
{
  worst_of_step<Real> w{Real(0), Real(0)};
  for (int i = 0; i < n; ++i) {
    basic_path_step<Real> const s = rows[i];
    x[i] += math::fma(s.vol, sign * y[i], s.drift);
    Real const performance = x[i] - log_initial[i];
    if (i == 0 || performance < w.x) {
      w.x = performance;
      w.var = s.vol * s.vol;
    }
  }
  return w;
}

// y = A z for the step's normals z, drawn in asset order.
template <typename Real, typename Feeder>
MCPRICE_HD MCPRICE_INLINE void worst_of_normals(int n, const Real* factor, Feeder& normals, Real* y)
{
  Real z[max_basket_assets];
  for (int j = 0; j < n; ++j) z[j] = normals.next();
  for (int i = 0; i < n; ++i) {
    Real acc(0);
    for (int j = 0; j < n; ++j) acc = math::fma(factor[i * n + j], z[j], acc);
    y[i] = acc;
  }
}

// The draw of walk_worst_of_sides for models whose steps take the correlated normals alone.
struct no_worst_of_draws {
  template <typename Feeder>
  MCPRICE_HD MCPRICE_INLINE void operator()(Feeder&) const
  {
  }
};

// Room for a walk's per-asset values: Assets, the trade's asset count where it is a compile-time
// constant (the values then live in registers), or 0 (any count: max_basket_assets).
template <int Assets>
inline constexpr int worst_of_room = Assets > 0 ? Assets : max_basket_assets;

// f(std::integral_constant<int, 3>{}) for three assets (the desks' worst-of-3, sized at compile
// time), else f(std::integral_constant<int, 0>{}): the kernels' one sized count.
template <typename F>
MCPRICE_HD MCPRICE_INLINE decltype(auto) with_worst_of_room(int assets, F&& f)
{
  if (assets == 3) return f(std::integral_constant<int, 3>{});
  return f(std::integral_constant<int, 0>{});
}

// Draws each step's correlated normals y while `open()`, then draw(normals) the step's other
// normals (a model's own: Heston's variances), and calls observe(k, worst step of side a, of
// side b); step_side(k, y, sign, x) moves one side's log spots x by step k (sign -1: the
// antithetic side) and returns its worst. Every worst-of model walks through here.
template <typename NormalStream, bool Antithetic, int Assets = 0, typename Real, typename Draw, typename StepSide,
          typename Observe, typename Open>
MCPRICE_HD MCPRICE_INLINE void walk_worst_of_sides(const basic_worst_of_trade<Real>& t, const Real* factor,
                                                   std::uint64_t group, Draw&& draw, StepSide&& step_side,
                                                   Observe&& observe, Open&& open)
{
  NormalStream rng(t.key, group);
  normal_feeder<NormalStream, Real> normals{rng};
  Real xa[worst_of_room<Assets>] = {};
  Real xb[worst_of_room<Assets>] = {};
  int const n = Assets > 0 ? Assets : t.assets;
  for (int k = 0; k < t.steps && open(); ++k) {
    Real y[worst_of_room<Assets>];
    worst_of_normals(n, factor, normals, y);
    draw(normals);
    worst_of_step<Real> const a = step_side(k, y, Real(1), xa);
    worst_of_step<Real> b = a;
    if constexpr (Antithetic) b = step_side(k, y, Real(-1), xb);
    observe(k, a, b);
  }
}

// Calls observe(k, step k's first row, worst step of side a, of side b) after each step, while
// `open()`. Assets: as walk_worst_of_sides.
template <typename NormalStream, bool Antithetic, int Assets = 0, typename Real, typename Observe, typename Open>
MCPRICE_HD MCPRICE_INLINE void walk_worst_of(const basic_worst_of_trade<Real>& t, const basic_path_step<Real>* steps,
                                             const Real* log_initial, const Real* factor, std::uint64_t group,
                                             Observe&& observe, Open&& open)
{
  int const n = Assets > 0 ? Assets : t.assets;
  walk_worst_of_sides<NormalStream, Antithetic, Assets>(
      t, factor, group, no_worst_of_draws{},
      [&](int k, const Real* y, Real sign, Real* x) {
        return step_worst_of(n, steps + static_cast<std::int64_t>(k) * n, log_initial, y, sign, x);
      },
      [&](int k, const worst_of_step<Real>& a, const worst_of_step<Real>& b) {
        observe(k, steps[static_cast<std::int64_t>(k) * n], a, b);
      },
      open);
}

// The path state today: the worst of the assets' performances S_i(0) / L_i, in log.
template <typename Real>
MCPRICE_HD MCPRICE_INLINE basic_path_state<Real> worst_of_start(const basic_worst_of_trade<Real>& t,
                                                                const Real* log_initial)
{
  auto s = basic_path_state<Real>::start(t);
  for (int i = 0; i < t.assets; ++i) s.x = i == 0 ? -log_initial[0] : math::fmin(s.x, -log_initial[i]);
  return s;
}

// A sample's value (the mean of its sides) from a worst-of walk: walk(observe, open) walks its
// paths as walk_worst_of does; steps: the trade's rows (each step's first row carries its marks
// and payment ratio, the observation rows follow).
template <bool Antithetic, typename Real, typename Step, typename Walk>
MCPRICE_HD MCPRICE_INLINE Real worst_of_value(const basic_worst_of_trade<Real>& t, const Step* steps,
                                              const Real* log_initial, Walk&& walk)
{
  constexpr path_product autocallable = path_product::autocallable;
  const basic_path_gbm_trade<Real>& base = t;
  auto const levels = observation_rows_of(steps, t);
  auto a = worst_of_start(t, log_initial);
  auto b = a;
  walk([&](int, const Step& s, const worst_of_step<Real>& wa, const worst_of_step<Real>& wb) {
    a.template observe<autocallable>(base, Real(0), wa.x, wa.var, s.fixing, s.hit_value, Real(0), levels);
    if constexpr (Antithetic)
      b.template observe<autocallable>(base, Real(0), wb.x, wb.var, s.fixing, s.hit_value, Real(0), levels);
  }, [&] { return !(a.settled() && (!Antithetic || b.settled())); });
  Real const up = a.template settle<autocallable>(base);
  if constexpr (!Antithetic) return up;
  else return Real(0.5) * (up + b.template settle<autocallable>(base));
}

template <typename NormalStream, bool Antithetic, int Assets = 0, typename Real>
MCPRICE_HD MCPRICE_INLINE Real worst_of_sample(const basic_worst_of_trade<Real>& t, const basic_path_step<Real>* grid,
                                               const Real* log_initials, const Real* factors, std::uint64_t group)
{
  const basic_path_step<Real>* steps = grid + t.first_step;
  const Real* log_initial = log_initials + t.first_asset;
  return worst_of_value<Antithetic>(t, steps, log_initial, [&](auto&& observe, auto&& open) {
    walk_worst_of<NormalStream, Antithetic, Assets>(t, steps, log_initial, factors + t.first_factor, group, observe,
                                                    open);
  });
}

// A sample's price (with_worst_of_room: sized or not, the same arithmetic).
template <typename NormalStream, typename Real>
MCPRICE_HD MCPRICE_INLINE Real worst_of_price(const basic_worst_of_trade<Real>& t, const basic_path_step<Real>* grid,
                                              const Real* log_initials, const Real* factors, std::uint64_t group)
{
  return with_worst_of_room(t.assets, [&](auto room) {
    constexpr int a = decltype(room)::value;
    return t.antithetic ? worst_of_sample<NormalStream, true, a>(t, grid, log_initials, factors, group)
                        : worst_of_sample<NormalStream, false, a>(t, grid, log_initials, factors, group);
  });
}

// A sample takes a subsequence of its own, as path trades do.
template <typename NormalStream, typename Real>
MCPRICE_HD MCPRICE_INLINE moments worst_of_lane(const basic_worst_of_trade<Real>& t, const basic_path_step<Real>* grid,
                                                const Real* log_initials, const Real* factors, std::int64_t block,
                                                int lane)
{
  return own_subsequence_lane(t.samples, block, lane, [&](std::uint64_t subsequence) {
    return worst_of_price<NormalStream>(t, grid, log_initials, factors, subsequence);
  });
}

}  // namespace mcprice
