#pragma once
// Greeks of single-asset products under Heston by scenario lanes (docs/greeks.md): each path is
// stepped once for the price and once more per scenario from the same normals, and the Greeks
// are central differences of the scenarios' payoffs:
//   spot +-1%:   the same variance path and log-spot increments, the barrier and a seasoned
//                extreme moved relative to S0;
//   model vega:  the vol level +-0.01, i.e. sqrt(v0) and sqrt(theta) each +-0.01 (kappa, xi and
//                rho held), with a variance path of its own;
//   rate +-1e-3: every increment's drift by dr dt, hit payments' discount ratios, e^{-+dr T};
//   time +-eps:  the first step shortened or lengthened (host-made steps after the trade's own),
//                with a variance path of its own; discount e^{+-r eps}.
#include "mcprice/kernels/models/heston_conditional.hpp"
#include "mcprice/kernels/models/heston_path.hpp"
#include "mcprice/kernels/greeks/path_greeks.hpp"

namespace mcprice {

inline constexpr float heston_vol_bump = 0.01F;

// With Greeks a trade's step table holds two more steps after its own: its first step
// shortened and lengthened by heston_roll(T, t_1).
MCPRICE_HD MCPRICE_INLINE float heston_roll(float first_dt) { return fminf(1.0F / 365.0F, 0.5F * first_dt); }

// The steps of a variance level theta' = scale x theta: the constants that scale with theta.
MCPRICE_HD MCPRICE_INLINE heston_step with_theta_scale(heston_step s, float scale)
{
  s.m0 *= scale;
  s.s2_0 *= scale;
  s.k0_fallback *= scale;
  return s;
}

// The model-vega scenarios' levels: v0 itself, theta as a scale of the trade's.
struct heston_vega_levels {
  float v0_up, v0_down, theta_up, theta_down;
};
MCPRICE_HD MCPRICE_INLINE heston_vega_levels vega_levels(const heston_trade& h)
{
  float const sqrt_v0 = sqrtf(fmaxf(h.v0, 0.0F));
  float const sqrt_theta = sqrtf(fmaxf(h.theta, 0.0F));
  auto level = [](float root, float bump) {
    float const r = fmaxf(root + bump, 0.0F);
    return r * r;
  };
  return {level(sqrt_v0, heston_vol_bump), level(sqrt_v0, -heston_vol_bump),
          h.theta > 0.0F ? level(sqrt_theta, heston_vol_bump) / h.theta : 1.0F,
          h.theta > 0.0F ? level(sqrt_theta, -heston_vol_bump) / h.theta : 1.0F};
}

// A European's scenarios by conditional Monte Carlo (heston_conditional.hpp), with the price's
// own variance path and draws: spot and rate move the terminal law's forward (the same variance
// path), vega and time step variance paths of their own.
template <typename NormalStream, bool Antithetic>
MCPRICE_HD MCPRICE_INLINE float heston_european_scenario_sample(const heston_trade& h, const heston_step* grid,
                                                                std::uint64_t group, greek_values& out)
{
  const path_gbm_trade& t = h;
  variance_stream<NormalStream, float> rng(t.key, group);
  const heston_step* steps = grid + t.first_step;
  constexpr int sides = Antithetic ? 2 : 1;
  heston_vega_levels const lv = vega_levels(h);
  // Variance paths: 0 the base, 1 and 2 vega +-, 3 and 4 time (first step shorter, longer);
  // a side's paths one after another, the antithetic side's behind the first's.
  constexpr int paths = 5;
  heston_terminal<float> end[sides * paths];
  float v[sides * paths];
  for (int i = 0; i < sides * paths; ++i) {
    int const path = i % paths;
    v[i] = path == 1 ? lv.v0_up : path == 2 ? lv.v0_down : h.v0;
  }
  float elapsed = 0.0F;
  for_heston_variance_draws<float>(t.steps, rng, [&](int k, const conditional_draw<float>& draw, bool fold) {
    heston_step const s = steps[k];
    elapsed += s.dt;
    MCPRICE_UNROLL
    for (int i = 0; i < sides * paths; ++i) {
      int const path = i % paths;
      conditional_draw<float> const zv = i < paths ? draw : draw.antithetic();
      heston_step const sp = path == 0   ? s
                             : path <= 2 ? with_theta_scale(s, path == 1 ? lv.theta_up : lv.theta_down)
                             : k == 0    ? steps[t.steps + path - 3]
                                         : s;
      heston_conditional_step(h.xi, sp, v[i], zv, end[i]);
      if (fold) end[i].fold();
    }
  });
  path_gbm_trade const spot_up = scenario_trade(t, 0);
  path_gbm_trade const spot_down = scenario_trade(t, 1);
  float const eps = heston_roll(steps[0].dt);
  if (t.jumps.intensity > 0.0F) {
    // One jump count a side; the time scenarios' horizons are shorter and longer by eps.
    std::uint32_t const bits = rng.next_uint4().x;
    for (int i = 0; i < sides * paths; ++i) {
      int const path = i % paths;
      float const horizon = path == 3 ? h.maturity - eps : path == 4 ? h.maturity + eps : h.maturity;
      add_jump_count(t.jumps, rounded_product(t.jumps.intensity, horizon), i < paths ? bits : ~bits, end[i]);
    }
  }
  greek_values g{};
  float price = 0.0F;
  for (int side = 0; side < sides; ++side) {
    const heston_terminal<float>* e = end + side * paths;
    float const p0 = conditional_european_payoff(t, e[0].x, e[0].w);
    float const p[path_scenarios] = {conditional_european_payoff(spot_up, e[0].x, e[0].w),
                                     conditional_european_payoff(spot_down, e[0].x, e[0].w),
                                     conditional_european_payoff(t, e[1].x, e[1].w),
                                     conditional_european_payoff(t, e[2].x, e[2].w),
                                     conditional_european_payoff(t, fmaf(scenario_rate_bump, elapsed, e[0].x), e[0].w),
                                     conditional_european_payoff(t, fmaf(-scenario_rate_bump, elapsed, e[0].x), e[0].w),
                                     conditional_european_payoff(t, e[3].x, e[3].w),
                                     conditional_european_payoff(t, e[4].x, e[4].w)};
    add_scenario_differences(g, p0, p, scenario_spot_bump * t.spot, heston_vol_bump,
                             expf(-scenario_rate_bump * h.maturity), expf(h.rate * eps), eps);
    price = side == 0 ? p0 : 0.5F * (price + p0);
  }
  if constexpr (Antithetic) g = halved(g);
  out = g;
  return price;
}

template <typename NormalStream, path_product Product, bool Antithetic>
MCPRICE_HD MCPRICE_INLINE float heston_scenario_sample(const heston_trade& h, const heston_step* grid,
                                                       std::uint64_t group, greek_values& out)
{
  const path_gbm_trade& t = h;
  NormalStream rng(t.key, group);
  const heston_step* steps = grid + t.first_step;
  constexpr int sides = Antithetic ? 2 : 1;
  // Scenarios: 0, 1 spot; 2, 3 model vega; 4, 5 rate; 6, 7 time. Variance paths: the base's
  // (also driving spot and rate), vega +-, time +-.
  path_gbm_trade const spot_up = scenario_trade(t, 0);
  path_gbm_trade const spot_down = scenario_trade(t, 1);
  heston_vega_levels const lv = vega_levels(h);
  float const eps = heston_roll(steps[0].dt);
  path_state base[sides];
  path_state st[sides][path_scenarios];
  float v_base[sides];
  float v_vega[sides][2];
  float v_time[sides][2];
  for (int side = 0; side < sides; ++side) {
    base[side] = path_state::start(t);
    for (int i = 0; i < path_scenarios; ++i) st[side][i] = path_state::start(i == 0 ? spot_up : i == 1 ? spot_down : t);
    v_base[side] = h.v0;
    v_vega[side][0] = lv.v0_up;
    v_vega[side][1] = lv.v0_down;
    v_time[side][0] = h.v0;
    v_time[side][1] = h.v0;
  }
  auto const levels = observation_rows_of(steps, t);
  float elapsed = 0.0F;
  auto const step = [&](int k, const qe_paired_draw& draw, float z_x, float u, auto jump) {
    heston_step const s = steps[k];
    elapsed += s.dt;
    for (int side = 0; side < sides; ++side) {
      qe_paired_draw const zv = side == 0 ? draw : draw.antithetic();
      float const zx = side == 0 ? z_x : -z_x;
      auto const jump_draw_of_side = side == 0 ? jump : jump.antithetic();
      auto const jump_size = heston_step_jump(t, s.dt, jump_draw_of_side);
      float dx = 0.0F;
      float var = 0.0F;
      heston_qe_step(h, s, v_base[side], zv, zx, dx, var);
      dx = with_jump(dx, jump_size);
      base[side].template move<Product>(t, t.log_barrier, dx, var, s.fixing, s.hit_value, u, levels);
      st[side][0].template move<Product>(spot_up, spot_up.log_barrier, dx, var, s.fixing, s.hit_value, u, levels);
      st[side][1].template move<Product>(spot_down, spot_down.log_barrier, dx, var, s.fixing, s.hit_value, u, levels);
      for (int r = 0; r < 2; ++r) {
        float const dr = r == 0 ? scenario_rate_bump : -scenario_rate_bump;
        float const hit = s.hit_value * fmaf(dr, h.maturity - elapsed, 1.0F);
        st[side][4 + r].template move<Product>(t, t.log_barrier, fmaf(dr, s.dt, dx), var, s.fixing, hit, u, levels);
      }
      for (int r = 0; r < 2; ++r) {
        float dx_v = 0.0F;
        float var_v = 0.0F;
        heston_step const sv = with_theta_scale(s, r == 0 ? lv.theta_up : lv.theta_down);
        heston_qe_step(h, sv, v_vega[side][r], zv, zx, dx_v, var_v);
        dx_v = with_jump(dx_v, jump_size);
        st[side][2 + r].template move<Product>(t, t.log_barrier, dx_v, var_v, s.fixing, s.hit_value, u, levels);
        // Time: the first step from the host-made rolled steps (shorter, then longer).
        heston_step const stime = k == 0 ? steps[t.steps + r] : s;
        float dx_t = 0.0F;
        float var_t = 0.0F;
        heston_qe_step(h, stime, v_time[side][r], zv, zx, dx_t, var_t);
        // The rolled first step's mean jump count is its own.
        dx_t = with_jump(dx_t, k == 0 ? heston_step_jump(t, stime.dt, jump_draw_of_side) : jump_size);
        st[side][6 + r].template move<Product>(t, t.log_barrier, dx_t, var_t, s.fixing, s.hit_value, u, levels);
      }
    }
  };
  for_heston_step_normals<Product>(t, rng, step);
  float const rate_up = expf(-scenario_rate_bump * h.maturity);
  float const time_factor = expf(h.rate * eps);
  float const dS = scenario_spot_bump * t.spot;
  greek_values v{};
  float price = 0.0F;
  for (int side = 0; side < sides; ++side) {
    float const p0 = base[side].template settle<Product>(t);
    float p[path_scenarios];
    p[0] = st[side][0].template payoff<Product>(spot_up);
    p[1] = st[side][1].template payoff<Product>(spot_down);
    for (int i = 2; i < path_scenarios; ++i) p[i] = st[side][i].template payoff<Product>(t);
    add_scenario_differences(v, p0, p, dS, heston_vol_bump, rate_up, time_factor, eps);
    price = side == 0 ? p0 : 0.5F * (price + p0);
  }
  if constexpr (Antithetic) v = halved(v);
  out = v;
  return price;
}

template <typename NormalStream>
MCPRICE_HD MCPRICE_INLINE priced_path_greeks heston_greek_lane(const heston_trade& h, const heston_step* grid,
                                                               std::int64_t block, int lane)
{
  return greek_lane_of(h, block, lane, [&](std::uint64_t subsequence, greek_values& v) {
    return with_path_product(h.product, [&](auto product) {
      constexpr path_product P = decltype(product)::value;
      if constexpr (P == path_product::european) {
        return h.antithetic ? heston_european_scenario_sample<NormalStream, true>(h, grid, subsequence, v)
                            : heston_european_scenario_sample<NormalStream, false>(h, grid, subsequence, v);
      } else {
        return h.antithetic ? heston_scenario_sample<NormalStream, P, true>(h, grid, subsequence, v)
                            : heston_scenario_sample<NormalStream, P, false>(h, grid, subsequence, v);
      }
    });
  });
}

}  // namespace mcprice
