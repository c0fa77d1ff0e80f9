#pragma once
// Greeks of worst-of autocallables on Heston and jump assets (GBM ones beside them): the GBM
// worst-of's scenario walks and channels (worst_of_greeks.hpp), each scenario stepping every
// asset's QE step and jumps from the price's draws with one input moved:
//   asset i's spot +-1%: its performance shifted by ln(1 +- h) (the log-spot path is the same);
//   vega_i: a Heston asset's vol level, sqrt(v0) and sqrt(theta) each +-0.01 (kappa, xi, rho
//     and the jump law held), as the single-asset Heston Greeks move it (heston_greeks.hpp);
//     a GBM asset's step vols +-0.01 along their derivatives, as the GBM worst-of moves them;
//   rho: every drift by dr dt, payments' discount ratios, e^{-+dr T};
//   theta: every asset's first step shortened or lengthened (host-made rows after the steps),
//     its jump count's mean with it, from the same draw;
//   correlation vega: the bumped factors, as for GBM.
// A local-vol asset beside them reads, in each scenario, the grid the local-vol worst-of's
// scenario reads (local_vol_worst_of_greeks.hpp: spot-, vol- and rate-bumped sticky-strike
// grids), and its theta rows are local-vol steps.
// Barrier and coupon digitals make pathwise estimators biased: these are differences.
#include "mcprice/kernels/greeks/heston_greeks.hpp"
#include "mcprice/kernels/greeks/local_vol_worst_of_greeks.hpp"
#include "mcprice/kernels/greeks/worst_of_greeks.hpp"
#include "mcprice/kernels/models/heston_worst_of_path.hpp"

#include <cstdint>

namespace mcprice {

// One side's value (sign -1: the antithetic path) in scenario `sc`, from subsequence `group`.
// Called, not inlined, on the GPU (MCPRICE_CALLED). Assets: the trade's asset count where a
// kernel sizes it (worst_of_room), or 0.
template <typename NormalStream, bool Antithetic, bool LocalVol, int Assets, typename Real>
MCPRICE_HD MCPRICE_CALLED Real heston_worst_of_scenario_value(const basic_heston_worst_of_trade<Real>& t,
                                                              const basic_heston_worst_of_tables<Real>& tab,
                                                              const basic_worst_of_scenario<Real>& sc,
                                                              std::uint64_t group)
{
  using step = basic_heston_step<Real>;
  Real const zero(0);
  int const n = Assets > 0 ? Assets : t.assets;
  const step* steps = tab.steps + t.first_step;
  const basic_heston_worst_of_greek_row<Real>* greek_rows = tab.greek_rows + t.first_step;
  const basic_heston_worst_of_asset<Real>* assets = tab.assets + t.first_asset;
  Real offset[worst_of_room<Assets>];
  int grid[worst_of_room<Assets>];
  for (int i = 0; i < n; ++i) {
    offset[i] = scenario_offset(sc, tab.log_initials[t.first_asset + i], i);
    grid[i] = assets[i].local_vol != 0 ? scenario_grid(sc, i) : 0;
  }
  Real const dr = scenario_rate_move(sc);
  int const vega_asset = sc.model == 2 || sc.model == 3 ? sc.model_asset : -1;
  int const vega_side = sc.model == 2 ? 0 : 1;
  // Theta's first rows: shortened (scenario 6) or lengthened (7), an asset each.
  std::int64_t const first_row = sc.model >= 6 ? static_cast<std::int64_t>(t.steps + sc.model - 6) * n : 0;
  Real va[worst_of_room<Assets>];
  Real vb[worst_of_room<Assets>];
  for (int i = 0; i < n; ++i) va[i] = vb[i] = i == vega_asset ? assets[i].vega_v0[vega_side] : assets[i].v0;
  heston_worst_of_draws<NormalStream, Assets, Real> d;
  scenario_sides<Antithetic, step, Real> sides(t, steps, offset, dr, t.maturity);
  walk_worst_of_sides<NormalStream, Antithetic, Assets>(
      t, tab.factors + t.first_factor + sc.factor * n * n, group, [&](auto& normals) { d.draw(n, assets, normals); },
      [&](int k, const Real* y, Real sign, Real* x) {
        std::int64_t const row = k == 0 ? first_row : static_cast<std::int64_t>(k) * n;
        Real* v = sign > zero ? va : vb;
        worst_of_step<Real> w{zero, zero};
        for (int i = 0; i < n; ++i) {
          step r = steps[row + i];
          basic_heston_worst_of_greek_row<Real> const g = greek_rows[row + i];
          if (i == vega_asset) {
            r = with_theta_scale(r, assets[i].vega_theta_scale[vega_side]);
            r.dt = g.vega_dt[vega_side];
          }
          Real const jump = assets[i].jumps.intensity > zero
                                ? d.log_jump_of(assets[i], i, tab.jump_counts[t.first_step + row + i], sign)
                                : zero;
          Real var = zero;
          Real const dx = heston_worst_of_increment<LocalVol>(t, tab, assets[i], r, row, i, grid[i], x[i], sign * y[i],
                                                              sign * d.z_v[i], v[i], var);
          x[i] += math::fma(dr, g.dt, dx) + jump;
          Real const performance = x[i] - offset[i];
          if (i == 0 || performance < w.x) w = {performance, var};
        }
        return w;
      },
      [&](int k, const worst_of_step<Real>& wa, const worst_of_step<Real>& wb) {
        std::int64_t const row = static_cast<std::int64_t>(k) * n;
        sides.observe(steps[row], greek_rows[row].time, wa, wb);
      },
      [&] { return sides.open(); });
  return sides.value();
}

// A lane of Heston worst-of trades with Greeks: the price with heston_worst_of_lane's bits.
template <typename NormalStream, bool LocalVol, typename Real>
MCPRICE_HD MCPRICE_INLINE priced_basket_greeks heston_worst_of_greek_lane(const basic_heston_worst_of_trade<Real>& t,
                                                                          const basic_heston_worst_of_tables<Real>& tab,
                                                                          std::int64_t block, int lane)
{
  return model_worst_of_greek_lane(
      t, tab.spots + t.first_asset, block, lane,
      [&](std::uint64_t subsequence) { return heston_worst_of_price<NormalStream, LocalVol>(t, tab, subsequence); },
      [&](auto antithetic, auto room, const basic_worst_of_scenario<Real>& sc, std::uint64_t subsequence) {
        return heston_worst_of_scenario_value<NormalStream, decltype(antithetic)::value, LocalVol,
                                              decltype(room)::value>(t, tab, sc, subsequence);
      },
      [&] {
        return basic_worst_of_clock<Real>{t.maturity, scenario_roll(tab.greek_rows[t.first_step].dt), t.rate};
      });
}

}  // namespace mcprice
