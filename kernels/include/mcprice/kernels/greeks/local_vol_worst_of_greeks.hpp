#pragma once
// Greeks of worst-of autocallables on local-vol assets: the GBM worst-of's scenario walks and
// channels (worst_of_greeks.hpp), each scenario reading, per asset, the grid the single-asset
// local-vol Greeks read (local_vol_greeks.hpp: the surface held in strike):
//   asset i's spot +-1%: its performance shifted by ln(1 +- h), its spot-bumped grid;
//   vega_i: its vol-bumped grids (implied vols +-0.01); a GBM asset's step vols +-0.01;
//   rho: every asset's rate-bumped grid, every drift by dr dt, payments' discount ratios;
//   theta: every asset's first step shortened or lengthened (host-made rows after the steps);
//   correlation vega: the bumped factors, as for GBM.
#include "mcprice/kernels/greeks/local_vol_greeks.hpp"
#include "mcprice/kernels/greeks/worst_of_greeks.hpp"
#include "mcprice/kernels/models/local_vol_worst_of_path.hpp"

#include <cstdint>

namespace mcprice {

using local_vol_worst_of_tables = basic_local_vol_worst_of_tables<float>;
using local_vol_axes = basic_local_vol_axes<float>;

// Which of asset i's grids scenario sc reads (0 its own, 1 + the bumped grid's index).
template <typename Real>
MCPRICE_HD MCPRICE_INLINE int scenario_grid(const basic_worst_of_scenario<Real>& sc, int i)
{
  for (int s = 0; s < 2; ++s) {
    if (sc.shifted[s] == i) return sc.shift[s] > Real(0) ? 1 : 2;
  }
  bool const vega = (sc.model == 2 || sc.model == 3) && sc.model_asset == i;
  bool const rate = sc.model == 4 || sc.model == 5;
  return vega || rate ? 1 + sc.model : 0;
}

// One side's value (sign -1: the antithetic path) in scenario `sc`, from subsequence `group`.
// Called, not inlined, on the GPU (MCPRICE_CALLED). Assets: the trade's asset count where a
// kernel sizes it (worst_of_room), or 0.
template <typename NormalStream, bool Antithetic, int Assets, typename Real>
MCPRICE_HD MCPRICE_CALLED Real local_vol_worst_of_scenario_value(const basic_local_vol_worst_of_trade<Real>& t,
                                                                 const basic_local_vol_worst_of_tables<Real>& tab,
                                                                 const basic_worst_of_scenario<Real>& sc,
                                                                 std::uint64_t group)
{
  using step = basic_local_vol_step<Real>;
  Real const zero(0);
  int const n = Assets > 0 ? Assets : t.assets;
  const step* steps = tab.steps + t.first_step;
  const basic_local_vol_axes<Real>* grids = tab.grids + t.first_grid;
  Real offset[worst_of_room<Assets>];
  int grid[worst_of_room<Assets>];
  for (int i = 0; i < n; ++i) {
    offset[i] = scenario_offset(sc, tab.log_initials[t.first_asset + i], i);
    grid[i] = i * worst_of_asset_grids + scenario_grid(sc, i);
  }
  Real const dr = scenario_rate_move(sc);
  constexpr Real vol_bump = scenario_bumps<Real>::vol;
  Real const vol_shift = sc.model == 2 ? vol_bump : sc.model == 3 ? -vol_bump : zero;
  // Theta's first rows: shortened (scenario 6) or lengthened (7), an asset each.
  const step* first = sc.model >= 6 ? steps + static_cast<std::int64_t>(t.steps + sc.model - 6) * n : steps;
  scenario_sides<Antithetic, step, Real> sides(t, steps, offset, dr, t.maturity);
  Real elapsed = Real(0);
  walk_worst_of_sides<NormalStream, Antithetic, Assets>(
      t, tab.factors + t.first_factor + sc.factor * n * n, group, no_worst_of_draws{},
      [&](int k, const Real* y, Real sign, Real* x) {
        const step* rows = k == 0 ? first : steps + static_cast<std::int64_t>(k) * n;
        worst_of_step<Real> w{zero, zero};
        for (int i = 0; i < n; ++i) {
          Real var = zero;
          Real const shift = sc.model_asset == i ? vol_shift : zero;
          Real const dx = worst_of_asset_increment(grids[grid[i]], tab.surface, rows[i], x[i], sign * y[i], shift, var);
          x[i] += math::fma(dr, rows[i].dt, dx);
          Real const performance = x[i] - offset[i];
          if (i == 0 || performance < w.x) w = {performance, var};
        }
        return w;
      },
      [&](int k, const worst_of_step<Real>& wa, const worst_of_step<Real>& wb) {
        step const s = steps[static_cast<std::int64_t>(k) * n];
        elapsed += s.dt;
        sides.observe(s, elapsed, wa, wb);
      },
      [&] { return sides.open(); });
  return sides.value();
}

// A lane of local-vol worst-of trades with Greeks: the price with local_vol_worst_of_lane's bits.
template <typename NormalStream, typename Real>
MCPRICE_HD MCPRICE_INLINE priced_basket_greeks
local_vol_worst_of_greek_lane(const basic_local_vol_worst_of_trade<Real>& t,
                              const basic_local_vol_worst_of_tables<Real>& tab, std::int64_t block, int lane)
{
  return model_worst_of_greek_lane(
      t, tab.spots + t.first_asset, block, lane,
      [&](std::uint64_t subsequence) { return local_vol_worst_of_price<NormalStream>(t, tab, subsequence); },
      [&](auto antithetic, auto room, const basic_worst_of_scenario<Real>& sc, std::uint64_t subsequence) {
        return local_vol_worst_of_scenario_value<NormalStream, decltype(antithetic)::value, decltype(room)::value>(
            t, tab, sc, subsequence);
      },
      [&] {
        return basic_worst_of_clock<Real>{t.maturity, scenario_roll(tab.steps[t.first_step].dt), t.rate};
      });
}

}  // namespace mcprice
