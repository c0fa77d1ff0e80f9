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
MCPRICE_HD MCPRICE_INLINE int scenario_grid(const worst_of_scenario& sc, int i)
{
  for (int s = 0; s < 2; ++s) {
    if (sc.shifted[s] == i) return sc.shift[s] > 0.0F ? 1 : 2;
  }
  bool const vega = (sc.model == 2 || sc.model == 3) && sc.model_asset == i;
  bool const rate = sc.model == 4 || sc.model == 5;
  return vega || rate ? 1 + sc.model : 0;
}

// One side's value (sign -1: the antithetic path) in scenario `sc`, from subsequence `group`.
// Called, not inlined, on the GPU (MCPRICE_CALLED). Assets: the trade's asset count where a
// kernel sizes it (worst_of_room), or 0.
template <typename NormalStream, bool Antithetic, int Assets>
MCPRICE_HD MCPRICE_CALLED float local_vol_worst_of_scenario_value(const local_vol_worst_of_trade& t,
                                                                  const local_vol_worst_of_tables& tab,
                                                                  const worst_of_scenario& sc, std::uint64_t group)
{
  int const n = Assets > 0 ? Assets : t.assets;
  const local_vol_step* steps = tab.steps + t.first_step;
  const local_vol_axes* grids = tab.grids + t.first_grid;
  float offset[worst_of_room<Assets>];
  int grid[worst_of_room<Assets>];
  for (int i = 0; i < n; ++i) {
    offset[i] = tab.log_initials[t.first_asset + i];
    for (int s = 0; s < 2; ++s) offset[i] -= sc.shifted[s] == i ? sc.shift[s] : 0.0F;
    grid[i] = i * worst_of_asset_grids + scenario_grid(sc, i);
  }
  float const dr = sc.model == 4 ? scenario_rate_bump : sc.model == 5 ? -scenario_rate_bump : 0.0F;
  float const vol_shift = sc.model == 2 ? scenario_vol_bump : sc.model == 3 ? -scenario_vol_bump : 0.0F;
  // Theta's first rows: shortened (scenario 6) or lengthened (7), an asset each.
  const local_vol_step* first = sc.model >= 6 ? steps + static_cast<std::int64_t>(t.steps + sc.model - 6) * n : steps;
  const path_gbm_trade& base = t;
  auto const levels = observation_rows_of(steps, t);
  auto a = worst_of_start(t, offset);
  auto b = a;
  float elapsed = 0.0F;
  walk_worst_of_sides<NormalStream, Antithetic, Assets>(
      t, tab.factors + t.first_factor + sc.factor * n * n, group, no_worst_of_draws{},
      [&](int k, const float* y, float sign, float* x) {
        const local_vol_step* rows = k == 0 ? first : steps + static_cast<std::int64_t>(k) * n;
        worst_of_step<float> w{0.0F, 0.0F};
        for (int i = 0; i < n; ++i) {
          float var = 0.0F;
          float const shift = sc.model_asset == i ? vol_shift : 0.0F;
          float const dx = worst_of_asset_increment(grids[grid[i]], tab.surface, rows[i], x[i], sign * y[i], shift, var);
          x[i] += fmaf(dr, rows[i].dt, dx);
          float const performance = x[i] - offset[i];
          if (i == 0 || performance < w.x) w = {performance, var};
        }
        return w;
      },
      [&](int k, const worst_of_step<float>& wa, const worst_of_step<float>& wb) {
        local_vol_step const s = steps[static_cast<std::int64_t>(k) * n];
        elapsed += s.dt;
        float const hit = dr == 0.0F ? s.hit_value : s.hit_value * fmaf(dr, t.maturity - elapsed, 1.0F);
        a.template observe<path_product::autocallable>(base, 0.0F, wa.x, wa.var, s.fixing, hit, 0.0F, levels);
        if constexpr (Antithetic)
          b.template observe<path_product::autocallable>(base, 0.0F, wb.x, wb.var, s.fixing, hit, 0.0F, levels);
      },
      [&] { return !(a.settled() && (!Antithetic || b.settled())); });
  float const up = a.template payoff<path_product::autocallable>(base);
  if constexpr (!Antithetic) return up;
  else return 0.5F * (up + b.template payoff<path_product::autocallable>(base));
}

// A lane of local-vol worst-of trades with Greeks: the price with local_vol_worst_of_lane's bits.
template <typename NormalStream>
MCPRICE_HD MCPRICE_INLINE priced_basket_greeks local_vol_worst_of_greek_lane(const local_vol_worst_of_trade& t,
                                                                             const local_vol_worst_of_tables& tab,
                                                                             std::int64_t block, int lane)
{
  auto const price = [&](std::uint64_t subsequence) { return local_vol_worst_of_price<NormalStream>(t, tab, subsequence); };
  auto const add_greeks = [&](std::uint64_t subsequence, float* v) {
    auto const value = [&](const worst_of_scenario& sc) {
      return with_worst_of_room(t.assets, [&](auto room) {
        constexpr int a = decltype(room)::value;
        return t.antithetic ? local_vol_worst_of_scenario_value<NormalStream, true, a>(t, tab, sc, subsequence)
                            : local_vol_worst_of_scenario_value<NormalStream, false, a>(t, tab, sc, subsequence);
      });
    };
    worst_of_clock const clock{t.maturity, local_vol_roll(tab.steps[t.first_step].dt), t.rate};
    add_worst_of_greeks(t, clock, tab.spots + t.first_asset, value, v);
  };
  return worst_of_greek_lane_of(t, block, lane, price, add_greeks);
}

}  // namespace mcprice
