#pragma once
// Worst-of autocallables on correlated local-vol assets (GBM assets may sit beside them). Each
// step draws the correlated normals y = A z as the GBM worst-of does, then moves every asset by a
// log-Euler step whose vol is read from its own local vol grid at the step's start (as the
// single-asset local-vol paths do), or, for a GBM asset, by its exact step (the row's vol). The
// autocallable path state follows the worst performance, its continuous knock-in taking the
// bridge with the worst asset's step variance (worst_of_path.hpp, docs/formats.md).
#include "mcprice/kernels/models/local_vol_path.hpp"
#include "mcprice/kernels/models/worst_of_path.hpp"

#include <cstdint>

namespace mcprice {

// Grids an asset has in a trade's grid table: its own, then the sticky-strike scenarios' (set with
// Greeks only; local_vol_path.hpp's order).
inline constexpr int worst_of_asset_grids = 1 + local_vol_bumped_grids;

// The worst-of record; its step rows are local-vol steps: k x assets + i is asset i's step k (every
// row of a step carries its hit_value and fixing byte); with Greeks the first step of each asset
// shortened (steps x assets + i) and lengthened (then + assets) for theta; then the observation
// rows.
template <typename Real>
struct basic_local_vol_worst_of_trade : basic_worst_of_trade<Real> {
  std::int32_t first_grid;  // into the grid table: worst_of_asset_grids per asset
  Real maturity;
  Real rate;  // the zero rate to maturity
};
using local_vol_worst_of_trade = basic_local_vol_worst_of_trade<float>;

// What a walk reads: the family's tables (device pointers in kernels, host ones on the CPU).
template <typename Real>
struct basic_local_vol_worst_of_tables {
  const basic_local_vol_step<Real>* steps{nullptr};
  const basic_local_vol_axes<Real>* grids{nullptr};  // a GBM asset's have no times
  const basic_vol_pair<Real>* surface{nullptr};      // the grids' values
  const Real* log_initials{nullptr};                 // ln(L_i / S_i(0))
  const Real* spots{nullptr};
  const Real* factors{nullptr};  // assets x assets, row-major; with Greeks then correlations +h, -h
};

// One asset's log increment over step s from log spot x with correlated normal y; var: its
// variance. A GBM asset (grid without times) moves exactly with the row's vol, shifted by
// gbm_vol_shift (its vega scenarios).
template <typename Real>
MCPRICE_HD MCPRICE_INLINE Real worst_of_asset_increment(const basic_local_vol_axes<Real>& g,
                                                        const basic_vol_pair<Real>* surface,
                                                        const basic_local_vol_step<Real>& s, Real x, Real y,
                                                        Real gbm_vol_shift, Real& var)
{
  Real const sigma = g.times == 0 ? s.vol + gbm_vol_shift : local_vol_between_rows(g, surface, s.row, s.weight, x);
  return local_vol_increment(sigma, s.log_forward, s.dt, s.root_dt, y, var);
}

// Moves one side's log spots x by step k (rows: the step's, an asset each) and returns its worst.
// Assets: the asset count where a kernel sizes it (worst_of_room), or 0.
template <int Assets, typename Real>
MCPRICE_HD MCPRICE_INLINE worst_of_step<Real> step_local_vol_worst_of(const basic_local_vol_worst_of_trade<Real>& t,
                                                                      const basic_local_vol_worst_of_tables<Real>& tab,
                                                                      const basic_local_vol_step<Real>* rows,
                                                                      const Real* y, Real sign, Real* x)
{
  worst_of_step<Real> w{Real(0), Real(0)};
  const Real* log_initial = tab.log_initials + t.first_asset;
  int const n = Assets > 0 ? Assets : t.assets;
  for (int i = 0; i < n; ++i) {
    Real var(0);
    x[i] += worst_of_asset_increment(tab.grids[t.first_grid + i * worst_of_asset_grids], tab.surface, rows[i], x[i],
                                     sign * y[i], Real(0), var);
    Real const performance = x[i] - log_initial[i];
    if (i == 0 || performance < w.x) w = {performance, var};
  }
  return w;
}

// Calls observe(k, step k's first row, worst step of side a, of side b) after each step, while
// `open()`.
template <typename NormalStream, bool Antithetic, int Assets = 0, typename Real, typename Observe, typename Open>
MCPRICE_HD MCPRICE_INLINE void walk_local_vol_worst_of(const basic_local_vol_worst_of_trade<Real>& t,
                                                       const basic_local_vol_worst_of_tables<Real>& tab,
                                                       std::uint64_t group, Observe&& observe, Open&& open)
{
  int const n = Assets > 0 ? Assets : t.assets;
  const basic_local_vol_step<Real>* steps = tab.steps + t.first_step;
  walk_worst_of_sides<NormalStream, Antithetic, Assets>(
      t, tab.factors + t.first_factor, group, no_worst_of_draws{},
      [&](int k, const Real* y, Real sign, Real* x) {
        return step_local_vol_worst_of<Assets>(t, tab, steps + static_cast<std::int64_t>(k) * n, y, sign, x);
      },
      [&](int k, const worst_of_step<Real>& a, const worst_of_step<Real>& b) {
        observe(k, steps[static_cast<std::int64_t>(k) * n], a, b);
      },
      open);
}

template <typename NormalStream, bool Antithetic, int Assets = 0, typename Real>
MCPRICE_HD MCPRICE_INLINE Real local_vol_worst_of_sample(const basic_local_vol_worst_of_trade<Real>& t,
                                                         const basic_local_vol_worst_of_tables<Real>& tab,
                                                         std::uint64_t group)
{
  return worst_of_value<Antithetic>(t, tab.steps + t.first_step, tab.log_initials + t.first_asset,
                                    [&](auto&& observe, auto&& open) {
                                      walk_local_vol_worst_of<NormalStream, Antithetic, Assets>(t, tab, group, observe,
                                                                                                open);
                                    });
}

// A sample's price (with_worst_of_room: sized or not, the same arithmetic).
template <typename NormalStream, typename Real>
MCPRICE_HD MCPRICE_INLINE Real local_vol_worst_of_price(const basic_local_vol_worst_of_trade<Real>& t,
                                                        const basic_local_vol_worst_of_tables<Real>& tab,
                                                        std::uint64_t group)
{
  return with_worst_of_room(t.assets, [&](auto room) {
    constexpr int a = decltype(room)::value;
    return t.antithetic ? local_vol_worst_of_sample<NormalStream, true, a>(t, tab, group)
                        : local_vol_worst_of_sample<NormalStream, false, a>(t, tab, group);
  });
}

template <typename NormalStream, typename Real>
MCPRICE_HD MCPRICE_INLINE moments local_vol_worst_of_lane(const basic_local_vol_worst_of_trade<Real>& t,
                                                          const basic_local_vol_worst_of_tables<Real>& tab,
                                                          std::int64_t block, int lane)
{
  return own_subsequence_lane(t.samples, block, lane, [&](std::uint64_t subsequence) {
    return local_vol_worst_of_price<NormalStream>(t, tab, subsequence);
  });
}

}  // namespace mcprice
