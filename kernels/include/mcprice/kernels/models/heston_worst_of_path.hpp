#pragma once
// Worst-of autocallables on correlated Heston assets (GBM ones may sit beside them). Each step
// draws the correlated log-spot normals y = A z as the GBM worst-of does, then one independent
// normal per asset for its variance, and moves every asset by Andersen's QE step
// (heston_path.hpp), as the multi-asset Heston exercise walks do: the market's correlation is
// that of the log-spot drivers independent of each variance (docs/design.md). A GBM
// asset is a Heston asset with no vol of vol, a unit variance and steps whose length is its
// total Black variance over the step: QE's log-normal branch is then its exact step. The
// continuous knock-in takes the worst asset's bridge on that asset's integrated variance over
// the step (worst_of_path.hpp, docs/formats.md).
//
// Jump assets (Merton on GBM, Bates on Heston) take this walk too: after the step's normals, one
// jump draw per jumping asset in asset order (jump_feeder.hpp), whose log jump over the step
// (jumps.hpp, the step's mean count from the host) is added to the asset's log spot; the
// antithetic side takes the complemented draw. The knock-in's bridge stays on the diffusion's
// variance, as for single-asset jump paths.
//
// Local-vol assets beside Heston or jump ones take this walk too: a local-vol asset moves by the
// local-vol worst-of's log-Euler step on its own grid (local_vol_worst_of_path.hpp), from the
// step's log-spot normal; its variance normal is drawn and left unused, so that every asset
// takes the same draws whatever its model.
#include "mcprice/kernels/models/heston_path.hpp"
#include "mcprice/kernels/models/jump_feeder.hpp"
#include "mcprice/kernels/models/local_vol_worst_of_path.hpp"
#include "mcprice/kernels/models/worst_of_path.hpp"

#include <cstdint>

namespace mcprice {

// Normals a step takes per asset: its log spot's and its variance's.
inline constexpr int heston_worst_of_normals_per_asset = 2;

// An asset's Heston parameters a path reads (a GBM asset: v0 = 1, xi = 0), and its jump law
// (intensity 0: none). With Greeks, its vega scenarios' levels (heston_worst_of_greeks.hpp):
// v0 and the scale of theta with the vol level +-0.01 (a GBM asset: 1 and 1, its rows move).
// local_vol: 1 where the asset steps on its local-vol grid (its Heston fields unused).
// Real: the path precision (double: --precision double).
template <typename Real>
struct basic_heston_worst_of_asset {
  Real v0;
  Real xi;
  basic_jump_law<Real> jumps;
  Real vega_v0[2];           // up, down
  Real vega_theta_scale[2];  // up, down
  std::int32_t local_vol;
};
using heston_worst_of_asset = basic_heston_worst_of_asset<float>;

// The worst-of record; its rows are Heston steps: k x assets + i is asset i's step k (every row
// of a step carries its hit_value and fixing byte), then, with Greeks, theta's first steps (an
// asset each, shortened then lengthened), then the observation rows.
template <typename Real>
struct basic_heston_worst_of_trade : basic_worst_of_trade<Real> {
  std::int32_t first_grid;  // with a local-vol asset: into the grid table, worst_of_asset_grids an asset
  Real maturity;
  Real rate;  // the zero rate to maturity (Greeks: theta's discount)
};
using heston_worst_of_trade = basic_heston_worst_of_trade<float>;

// With Greeks, a row parallel to each step row (theta's rows included): the step's length in
// time and its end (a GBM asset's row holds its Black variance in dt), and the row's length
// in the vega scenarios (up, down): a GBM asset's Black variance with its step's vol moved
// +-0.01 along its derivative, as the GBM worst-of moves it; a Heston asset's own dt.
template <typename Real>
struct alignas(16) basic_heston_worst_of_greek_row {
  Real dt;
  Real time;
  Real vega_dt[2];
};
using heston_worst_of_greek_row = basic_heston_worst_of_greek_row<float>;

// What a walk reads: the family's tables (device pointers in kernels, host ones on the CPU).
template <typename Real>
struct basic_heston_worst_of_tables {
  const basic_heston_step<Real>* steps{nullptr};
  const basic_heston_worst_of_asset<Real>* assets{nullptr};  // trade.first_asset, as the initial levels
  const Real* log_initials{nullptr};                         // ln(L_i / S_i(0))
  const Real* spots{nullptr};                                // S_i(0)
  const Real* factors{nullptr};  // assets x assets, row-major; with Greeks then correlations +h, -h
  // A jump trade's mean jump counts lambda dt, parallel to its step rows (from trade.first_step:
  // asset i's step k at k x assets + i); null where no trade jumps.
  const Real* jump_counts{nullptr};
  // Parallel to the step rows of trades with Greeks; null where none has them.
  const basic_heston_worst_of_greek_row<Real>* greek_rows{nullptr};
  // Trades with a local-vol asset: its local-vol steps parallel to the step rows (the other
  // assets' rows unused), its grids' axes (trade.first_grid) and their values; null where none
  // has one.
  const basic_local_vol_step<Real>* local_vol_steps{nullptr};
  const basic_local_vol_axes<Real>* grids{nullptr};
  const basic_vol_pair<Real>* surface{nullptr};
};
using heston_worst_of_tables = basic_heston_worst_of_tables<float>;

// Asset i's log increment over the step at `row` (the trade's row index of its step's first
// asset) from log spot x with normals z_x and z_v: its QE step with variance v, or a local-vol
// asset's step on grid `grid` (its own, or a scenario's); var: the step's variance. LocalVol:
// the kernel prices trades with local-vol assets (the mixed worst-ofs' kernels); without, the
// local-vol step is not compiled in, which keeps the Heston kernels 8% faster
// (docs/benchmarks.md).
template <bool LocalVol, typename Real>
MCPRICE_HD MCPRICE_INLINE Real heston_worst_of_increment(const basic_heston_worst_of_trade<Real>& t,
                                                         const basic_heston_worst_of_tables<Real>& tab,
                                                         const basic_heston_worst_of_asset<Real>& a,
                                                         const basic_heston_step<Real>& r, std::int64_t row, int i,
                                                         int grid, Real x, Real z_x, Real z_v, Real& v, Real& var)
{
  Real dx(0);
  if constexpr (LocalVol) {
    if (a.local_vol != 0) {
      std::int64_t const at = t.first_step + row + i;
      return worst_of_asset_increment(tab.grids[t.first_grid + i * worst_of_asset_grids + grid], tab.surface,
                                      tab.local_vol_steps[at], x, z_x, Real(0), var);
    }
  }
  heston_qe_step(a.xi, r, v, basic_qe_normal_draw<Real>{z_v}, z_x, dx, var);
  return dx;
}

// Moves one side's log spots x and variances v by the step at `row` (k x assets: the step's
// rows, an asset each) with the correlated normals y and the variance normals z_v, and returns
// its worst. jumps: each asset's log jump over the step (0 for an asset without jumps).
template <int Assets, bool LocalVol, typename Real>
MCPRICE_HD MCPRICE_INLINE worst_of_step<Real> step_heston_worst_of(const basic_heston_worst_of_trade<Real>& t,
                                                                   const basic_heston_worst_of_tables<Real>& tab,
                                                                   std::int64_t row, const Real* y, const Real* z_v,
                                                                   const Real* jumps, Real sign, Real* x, Real* v)
{
  worst_of_step<Real> w{Real(0), Real(0)};
  const Real* log_initial = tab.log_initials + t.first_asset;
  const basic_heston_worst_of_asset<Real>* assets = tab.assets + t.first_asset;
  const basic_heston_step<Real>* rows = tab.steps + t.first_step + row;
  int const n = Assets > 0 ? Assets : t.assets;
  for (int i = 0; i < n; ++i) {
    Real var(0);
    Real const dx =
        heston_worst_of_increment<LocalVol>(t, tab, assets[i], rows[i], row, i, 0, x[i], sign * y[i], sign * z_v[i], v[i],
                                            var);
    x[i] += dx + jumps[i];
    Real const performance = x[i] - log_initial[i];
    if (i == 0 || performance < w.x) w = {performance, var};
  }
  return w;
}

// A step's draws beside its correlated normals: a variance normal per asset, then a jump draw
// per jumping asset in asset order. Every Heston worst-of walk (price, scenarios) draws here.
template <typename NormalStream, int Assets, typename Real = float>
struct heston_worst_of_draws {
  Real z_v[worst_of_room<Assets>];
  jump_draw jumps[worst_of_room<Assets>] = {};
  jump_feeder<NormalStream> feeder{nullptr};  // bound to the walk's stream at its first step

  template <typename Normals>
  MCPRICE_HD MCPRICE_INLINE void draw(int n, const basic_heston_worst_of_asset<Real>* assets, Normals& normals)
  {
    for (int i = 0; i < n; ++i) z_v[i] = normals.next();
    feeder.rng = &normals.rng;
    for (int i = 0; i < n; ++i) {
      if (assets[i].jumps.intensity > Real(0)) jumps[i] = feeder.next();
    }
  }
  // Asset i's log jump over a step of mean count m on one side (sign -1: the antithetic one).
  MCPRICE_HD MCPRICE_INLINE Real log_jump_of(const basic_heston_worst_of_asset<Real>& a, int i, Real m, Real sign) const
  {
    return log_jump(a.jumps, m, sign > Real(0) ? jumps[i] : jumps[i].antithetic());
  }
};

// Calls observe(k, step k's first row, worst step of side a, of side b) after each step, while
// `open()`. Assets: the asset count where a kernel sizes it (worst_of_room), or 0. LocalVol: as
// heston_worst_of_increment.
template <typename NormalStream, bool Antithetic, bool LocalVol, int Assets = 0, typename Real, typename Observe,
          typename Open>
MCPRICE_HD MCPRICE_INLINE void walk_heston_worst_of(const basic_heston_worst_of_trade<Real>& t,
                                                    const basic_heston_worst_of_tables<Real>& tab, std::uint64_t group,
                                                    Observe&& observe, Open&& open)
{
  int const n = Assets > 0 ? Assets : t.assets;
  const basic_heston_step<Real>* steps = tab.steps + t.first_step;
  Real va[worst_of_room<Assets>];
  Real vb[worst_of_room<Assets>];
  // Each side's log jumps over the step (0 without).
  const basic_heston_worst_of_asset<Real>* assets = tab.assets + t.first_asset;
  heston_worst_of_draws<NormalStream, Assets, Real> d;
  Real jumps[worst_of_room<Assets>] = {};
  for (int i = 0; i < n; ++i) va[i] = vb[i] = assets[i].v0;
  walk_worst_of_sides<NormalStream, Antithetic, Assets>(
      t, tab.factors + t.first_factor, group, [&](auto& normals) { d.draw(n, assets, normals); },
      [&](int k, const Real* y, Real sign, Real* x) {
        for (int i = 0; i < n; ++i) {
          if (!(assets[i].jumps.intensity > Real(0))) continue;
          jumps[i] = d.log_jump_of(assets[i], i, tab.jump_counts[t.first_step + static_cast<std::int64_t>(k) * n + i],
                                   sign);
        }
        return step_heston_worst_of<Assets, LocalVol>(t, tab, static_cast<std::int64_t>(k) * n, y, d.z_v, jumps, sign, x,
                                                      sign > Real(0) ? va : vb);
      },
      [&](int k, const worst_of_step<Real>& a, const worst_of_step<Real>& b) {
        observe(k, steps[static_cast<std::int64_t>(k) * n], a, b);
      },
      open);
}

template <typename NormalStream, bool Antithetic, bool LocalVol, int Assets = 0, typename Real>
MCPRICE_HD MCPRICE_INLINE Real heston_worst_of_sample(const basic_heston_worst_of_trade<Real>& t,
                                                      const basic_heston_worst_of_tables<Real>& tab, std::uint64_t group)
{
  return worst_of_value<Antithetic>(t, tab.steps + t.first_step, tab.log_initials + t.first_asset,
                                    [&](auto&& observe, auto&& open) {
                                      walk_heston_worst_of<NormalStream, Antithetic, LocalVol, Assets>(
                                          t, tab, group, observe, open);
                                    });
}

// A sample's price (with_worst_of_room: sized or not, the same arithmetic; LocalVol: a trade
// without local-vol assets prices with the same bits either way).
template <typename NormalStream, bool LocalVol, typename Real>
MCPRICE_HD MCPRICE_INLINE Real heston_worst_of_price(const basic_heston_worst_of_trade<Real>& t,
                                                     const basic_heston_worst_of_tables<Real>& tab, std::uint64_t group)
{
  return with_worst_of_room(t.assets, [&](auto room) {
    constexpr int a = decltype(room)::value;
    return t.antithetic ? heston_worst_of_sample<NormalStream, true, LocalVol, a>(t, tab, group)
                        : heston_worst_of_sample<NormalStream, false, LocalVol, a>(t, tab, group);
  });
}

template <typename NormalStream, bool LocalVol, typename Real>
MCPRICE_HD MCPRICE_INLINE moments heston_worst_of_lane(const basic_heston_worst_of_trade<Real>& t,
                                                       const basic_heston_worst_of_tables<Real>& tab, std::int64_t block,
                                                       int lane)
{
  return own_subsequence_lane(t.samples, block, lane, [&](std::uint64_t subsequence) {
    return heston_worst_of_price<NormalStream, LocalVol>(t, tab, subsequence);
  });
}

}  // namespace mcprice
