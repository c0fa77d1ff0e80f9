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

// Calls observe(k, worst step of side a, of side b) after each step, while `open()`.
template <typename NormalStream, bool Antithetic, typename Real, typename Observe, typename Open>
MCPRICE_HD MCPRICE_INLINE void walk_worst_of(const basic_worst_of_trade<Real>& t, const basic_path_step<Real>* steps,
                                             const Real* log_initial, const Real* factor, std::uint64_t group,
                                             Observe&& observe, Open&& open)
{
  NormalStream rng(t.key, group);
  normal_feeder<NormalStream, Real> normals{rng};
  Real xa[max_basket_assets] = {};
  Real xb[max_basket_assets] = {};
  int const n = t.assets;
  for (int k = 0; k < t.steps && open(); ++k) {
    Real y[max_basket_assets];
    worst_of_normals(n, factor, normals, y);
    const basic_path_step<Real>* rows = steps + static_cast<std::int64_t>(k) * n;
    worst_of_step<Real> const a = step_worst_of(n, rows, log_initial, y, Real(1), xa);
    worst_of_step<Real> b = a;
    if constexpr (Antithetic) b = step_worst_of(n, rows, log_initial, y, Real(-1), xb);
    observe(k, rows[0], a, b);
  }
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

template <typename NormalStream, bool Antithetic, typename Real>
MCPRICE_HD MCPRICE_INLINE Real worst_of_sample(const basic_worst_of_trade<Real>& t, const basic_path_step<Real>* grid,
                                               const Real* log_initials, const Real* factors, std::uint64_t group)
{
  constexpr path_product autocallable = path_product::autocallable;
  const basic_path_gbm_trade<Real>& base = t;
  const basic_path_step<Real>* steps = grid + t.first_step;
  auto const levels = observation_rows_of(steps, t);
  auto a = worst_of_start(t, log_initials + t.first_asset);
  auto b = a;
  walk_worst_of<NormalStream, Antithetic>(
      t, steps, log_initials + t.first_asset, factors + t.first_factor, group,
      [&](int, const basic_path_step<Real>& s, const worst_of_step<Real>& wa, const worst_of_step<Real>& wb) {
        a.template observe<autocallable>(base, Real(0), wa.x, wa.var, s.fixing, s.hit_value, Real(0), levels);
        if constexpr (Antithetic)
          b.template observe<autocallable>(base, Real(0), wb.x, wb.var, s.fixing, s.hit_value, Real(0), levels);
      },
      [&] { return !(a.settled() && (!Antithetic || b.settled())); });
  Real const up = a.template settle<autocallable>(base);
  if constexpr (!Antithetic) return up;
  else return Real(0.5) * (up + b.template settle<autocallable>(base));
}

// A sample takes a subsequence of its own, as path trades do.
template <typename NormalStream, typename Real>
MCPRICE_HD MCPRICE_INLINE moments worst_of_lane(const basic_worst_of_trade<Real>& t, const basic_path_step<Real>* grid,
                                                const Real* log_initials, const Real* factors, std::int64_t block,
                                                int lane)
{
  return own_subsequence_lane(t.samples, block, lane, [&](std::uint64_t subsequence) {
    return t.antithetic ? worst_of_sample<NormalStream, true>(t, grid, log_initials, factors, subsequence)
                        : worst_of_sample<NormalStream, false>(t, grid, log_initials, factors, subsequence);
  });
}

}  // namespace mcprice
