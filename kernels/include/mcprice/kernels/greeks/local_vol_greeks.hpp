#pragma once
// Greeks of single-asset products under local volatility by scenario lanes (docs/greeks.md): each
// path is stepped once for the price and once more per scenario from the same normals, and the
// Greeks are central differences of the scenarios' payoffs (add_scenario_differences). The
// implied surface is held fixed in strike (sticky strike), so every scenario but time reads a
// local vol grid of its own, made from the same surface (asset::local_vol_bumped):
//   spot +-1%:   S_0 moved, its grid rebuilt (Dupire's local vol at a strike depends on the spot
//                through the forward moneyness), the barrier and a seasoned extreme relative to S_0;
//   vega:        every implied vol +-0.01, its grid rebuilt;
//   rate +-1e-3: its grid rebuilt, every increment's drift by dr dt, hit payments' discount
//                ratios, e^{-+dr T};
//   time +-eps:  the first step shortened or lengthened (host-made steps after the trade's own),
//                the base grid; discount e^{+-r eps}.
#include "mcprice/kernels/greeks/path_greeks.hpp"
#include "mcprice/kernels/greeks/scenario_roll.hpp"
#include "mcprice/kernels/models/local_vol_path.hpp"

namespace mcprice {

using local_vol_trade = basic_local_vol_trade<float>;
using local_vol_step = basic_local_vol_step<float>;
using vol_pair = basic_vol_pair<float>;

// With Greeks a trade's step table holds two more steps after its own: its first step shortened
// and lengthened by scenario_roll(t_1).

template <typename NormalStream, path_product Product, bool Antithetic, typename Real>
MCPRICE_HD MCPRICE_INLINE Real local_vol_scenario_sample(const basic_local_vol_trade<Real>& h,
                                                         const basic_local_vol_step<Real>* grid,
                                                         const basic_vol_pair<Real>* table, std::uint64_t group,
                                                         basic_greek_values<Real>& out)
{
  using record = basic_path_gbm_trade<Real>;
  using state = basic_path_state<Real>;
  using step_row = basic_local_vol_step<Real>;
  constexpr Real rate_bump = scenario_bumps<Real>::rate;
  const record& t = h;
  NormalStream rng(t.key, group);
  const step_row* steps = grid + t.first_step;
  record const spot_up = scenario_trade(t, 0);
  record const spot_down = scenario_trade(t, 1);
  auto trade_of = [&](int i) -> const record& { return i == 0 ? spot_up : i == 1 ? spot_down : t; };
  // Scenario i's grid: the bumped grids in scenario order, the base grid for time.
  auto grid_of = [&](int i) -> const basic_local_vol_axes<Real>& {
    return i < local_vol_bumped_grids ? h.bumped[i] : h.surface;
  };
  constexpr int sides = Antithetic ? 2 : 1;
  state base[sides];
  state st[sides][path_scenarios];
  for (int side = 0; side < sides; ++side) {
    base[side] = state::start(t);
    MCPRICE_UNROLL
    for (int i = 0; i < path_scenarios; ++i) st[side][i] = state::start(trade_of(i));
  }
  auto const levels = observation_rows_of(steps, t);
  Real elapsed(0);
  // Local-vol assets carry no jumps: the walk hands no_jump.
  auto step = [&](int k, Real z, Real u, auto) {
    step_row const s = steps[k];
    elapsed += s.dt;
    for (int side = 0; side < sides; ++side) {
      Real const zs = side == 0 ? z : -z;
      Real var(0);
      Real const dx = local_vol_increment(h.surface, table, s, base[side].x, zs, var);
      base[side].template move<Product>(t, t.log_barrier, dx, var, s.fixing, s.hit_value, u, levels);
      MCPRICE_UNROLL
      for (int i = 0; i < path_scenarios; ++i) {
        step_row const si = i >= 6 && k == 0 ? steps[t.steps + i - 6] : s;
        Real var_i(0);
        Real dx_i = local_vol_increment(grid_of(i), table, si, st[side][i].x, zs, var_i);
        Real hit = s.hit_value;
        if (i == 4 || i == 5) {
          Real const dr = i == 4 ? rate_bump : -rate_bump;
          dx_i = math::fma(dr, s.dt, dx_i);
          hit = s.hit_value * math::fma(dr, h.maturity - elapsed, Real(1));
        }
        const record& ti = trade_of(i);
        st[side][i].template move<Product>(ti, ti.log_barrier, dx_i, var_i, s.fixing, hit, u, levels);
      }
    }
  };
  for_path_step_normals<Product>(t, rng, step);
  Real const eps = scenario_roll(steps[0].dt);
  Real const rate_up = math::exp(-rate_bump * h.maturity);
  Real const time_factor = math::exp(h.rate * eps);
  basic_greek_values<Real> v{};
  Real price(0);
  for (int side = 0; side < sides; ++side) {
    Real p[path_scenarios];
    MCPRICE_UNROLL
    for (int i = 0; i < path_scenarios; ++i) p[i] = st[side][i].template payoff<Product>(trade_of(i));
    Real const p0 = base[side].template settle<Product>(t);
    add_scenario_differences(v, p0, p, scenario_bumps<Real>::spot * t.spot, scenario_bumps<Real>::vol, rate_up,
                             time_factor, eps);
    price = side == 0 ? p0 : Real(0.5) * (price + p0);
  }
  if constexpr (Antithetic) v = halved(v);
  out = v;
  return price;
}

template <typename NormalStream, typename Real>
MCPRICE_HD MCPRICE_INLINE priced_path_greeks local_vol_greek_lane(const basic_local_vol_trade<Real>& h,
                                                                  const basic_local_vol_step<Real>* grid,
                                                                  const basic_vol_pair<Real>* table, std::int64_t block,
                                                                  int lane)
{
  return greek_lane_of(h, block, lane, [&](std::uint64_t subsequence, basic_greek_values<Real>& v) {
    return with_path_product(h.product, [&](auto product) {
      constexpr path_product P = decltype(product)::value;
      return h.antithetic ? local_vol_scenario_sample<NormalStream, P, true>(h, grid, table, subsequence, v)
                          : local_vol_scenario_sample<NormalStream, P, false>(h, grid, table, subsequence, v);
    });
  });
}

}  // namespace mcprice
