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
#include "mcprice/kernels/greeks/scenario_roll.hpp"

namespace mcprice {

// The model-vega scenarios' bump of the vol level (either path precision).
template <typename Real>
inline constexpr Real heston_vol_bump_of = Real(0.01);
inline constexpr float heston_vol_bump = heston_vol_bump_of<float>;

// With Greeks a trade's step table holds two more steps after its own: its first step
// shortened and lengthened by scenario_roll(t_1).

// The steps of a variance level theta' = scale x theta: the constants that scale with theta.
template <typename Real>
MCPRICE_HD MCPRICE_INLINE basic_heston_step<Real> with_theta_scale(basic_heston_step<Real> s, Real scale)
{
  s.m0 *= scale;
  s.s2_0 *= scale;
  s.k0_fallback *= scale;
  return s;
}

// The model-vega scenarios' levels: v0 itself, theta as a scale of the trade's.
template <typename Real>
struct basic_heston_vega_levels {
  Real v0_up, v0_down, theta_up, theta_down;
};
using heston_vega_levels = basic_heston_vega_levels<float>;
template <typename Real>
MCPRICE_HD MCPRICE_INLINE basic_heston_vega_levels<Real> vega_levels(const basic_heston_trade<Real>& h)
{
  Real const zero(0);
  Real const sqrt_v0 = math::sqrt(math::fmax(h.v0, zero));
  Real const sqrt_theta = math::sqrt(math::fmax(h.theta, zero));
  auto level = [zero](Real root, Real bump) {
    Real const r = math::fmax(root + bump, zero);
    return r * r;
  };
  constexpr Real bump = heston_vol_bump_of<Real>;
  return {level(sqrt_v0, bump), level(sqrt_v0, -bump), h.theta > zero ? level(sqrt_theta, bump) / h.theta : Real(1),
          h.theta > zero ? level(sqrt_theta, -bump) / h.theta : Real(1)};
}

// A European's scenarios by conditional Monte Carlo (heston_conditional.hpp), with the price's
// own variance path and draws: spot and rate move the terminal law's forward (the same variance
// path), vega and time step variance paths of their own.
template <typename NormalStream, bool Antithetic, typename Real>
MCPRICE_HD MCPRICE_INLINE Real heston_european_scenario_sample(const basic_heston_trade<Real>& h,
                                                               const basic_heston_step<Real>* grid, std::uint64_t group,
                                                               basic_greek_values<Real>& out)
{
  const basic_path_gbm_trade<Real>& t = h;
  variance_stream<NormalStream, Real> rng(t.key, group);
  const basic_heston_step<Real>* steps = grid + t.first_step;
  constexpr int sides = Antithetic ? 2 : 1;
  constexpr Real rate_bump = scenario_bumps<Real>::rate;
  basic_heston_vega_levels<Real> const lv = vega_levels(h);
  // Variance paths: 0 the base, 1 and 2 vega +-, 3 and 4 time (first step shorter, longer);
  // a side's paths one after another, the antithetic side's behind the first's.
  constexpr int paths = 5;
  heston_terminal<Real> end[sides * paths];
  Real v[sides * paths];
  for (int i = 0; i < sides * paths; ++i) {
    int const path = i % paths;
    v[i] = path == 1 ? lv.v0_up : path == 2 ? lv.v0_down : h.v0;
  }
  Real elapsed(0);
  for_heston_variance_draws<Real>(t.steps, rng, [&](int k, const conditional_draw<Real>& draw, bool fold) {
    basic_heston_step<Real> const s = steps[k];
    elapsed += s.dt;
    MCPRICE_UNROLL
    for (int i = 0; i < sides * paths; ++i) {
      int const path = i % paths;
      conditional_draw<Real> const zv = i < paths ? draw : draw.antithetic();
      basic_heston_step<Real> const sp = path == 0   ? s
                             : path <= 2 ? with_theta_scale(s, path == 1 ? lv.theta_up : lv.theta_down)
                             : k == 0    ? steps[t.steps + path - 3]
                                         : s;
      heston_conditional_step(h.xi, sp, v[i], zv, end[i]);
      if (fold) end[i].fold();
    }
  });
  basic_path_gbm_trade<Real> const spot_up = scenario_trade(t, 0);
  basic_path_gbm_trade<Real> const spot_down = scenario_trade(t, 1);
  Real const eps = scenario_roll(steps[0].dt);
  if (t.jumps.intensity > Real(0)) {
    // One jump count a side; the time scenarios' horizons are shorter and longer by eps.
    std::uint32_t const bits = rng.next_uint4().x;
    for (int i = 0; i < sides * paths; ++i) {
      int const path = i % paths;
      Real const horizon = path == 3 ? h.maturity - eps : path == 4 ? h.maturity + eps : h.maturity;
      add_jump_count(t.jumps, rounded_product(t.jumps.intensity, horizon), i < paths ? bits : ~bits, end[i]);
    }
  }
  basic_greek_values<Real> g{};
  Real price(0);
  for (int side = 0; side < sides; ++side) {
    const heston_terminal<Real>* e = end + side * paths;
    Real const p0 = conditional_european_payoff(t, e[0].x, e[0].w);
    Real const p[path_scenarios] = {conditional_european_payoff(spot_up, e[0].x, e[0].w),
                                     conditional_european_payoff(spot_down, e[0].x, e[0].w),
                                     conditional_european_payoff(t, e[1].x, e[1].w),
                                     conditional_european_payoff(t, e[2].x, e[2].w),
                                     conditional_european_payoff(t, math::fma(rate_bump, elapsed, e[0].x), e[0].w),
                                     conditional_european_payoff(t, math::fma(-rate_bump, elapsed, e[0].x), e[0].w),
                                     conditional_european_payoff(t, e[3].x, e[3].w),
                                     conditional_european_payoff(t, e[4].x, e[4].w)};
    add_scenario_differences(g, p0, p, scenario_bumps<Real>::spot * t.spot, heston_vol_bump_of<Real>,
                             math::exp(-rate_bump * h.maturity), math::exp(h.rate * eps), eps);
    price = side == 0 ? p0 : Real(0.5) * (price + p0);
  }
  if constexpr (Antithetic) g = halved(g);
  out = g;
  return price;
}

template <typename NormalStream, path_product Product, bool Antithetic, typename Real>
MCPRICE_HD MCPRICE_INLINE Real heston_scenario_sample(const basic_heston_trade<Real>& h,
                                                      const basic_heston_step<Real>* grid, std::uint64_t group,
                                                      basic_greek_values<Real>& out)
{
  using record = basic_path_gbm_trade<Real>;
  using state = basic_path_state<Real>;
  using step_row = basic_heston_step<Real>;
  const record& t = h;
  NormalStream rng(t.key, group);
  const step_row* steps = grid + t.first_step;
  constexpr int sides = Antithetic ? 2 : 1;
  constexpr Real rate_bump = scenario_bumps<Real>::rate;
  // Scenarios: 0, 1 spot; 2, 3 model vega; 4, 5 rate; 6, 7 time. Variance paths: the base's
  // (also driving spot and rate), vega +-, time +-.
  record const spot_up = scenario_trade(t, 0);
  record const spot_down = scenario_trade(t, 1);
  basic_heston_vega_levels<Real> const lv = vega_levels(h);
  Real const eps = scenario_roll(steps[0].dt);
  state base[sides];
  state st[sides][path_scenarios];
  Real v_base[sides];
  Real v_vega[sides][2];
  Real v_time[sides][2];
  for (int side = 0; side < sides; ++side) {
    base[side] = state::start(t);
    for (int i = 0; i < path_scenarios; ++i) st[side][i] = state::start(i == 0 ? spot_up : i == 1 ? spot_down : t);
    v_base[side] = h.v0;
    v_vega[side][0] = lv.v0_up;
    v_vega[side][1] = lv.v0_down;
    v_time[side][0] = h.v0;
    v_time[side][1] = h.v0;
  }
  auto const levels = observation_rows_of(steps, t);
  Real elapsed(0);
  auto const step = [&](int k, const basic_qe_paired_draw<Real>& draw, Real z_x, Real u, auto jump) {
    step_row const s = steps[k];
    elapsed += s.dt;
    for (int side = 0; side < sides; ++side) {
      basic_qe_paired_draw<Real> const zv = side == 0 ? draw : draw.antithetic();
      Real const zx = side == 0 ? z_x : -z_x;
      auto const jump_draw_of_side = side == 0 ? jump : jump.antithetic();
      auto const jump_size = heston_step_jump(t, s.dt, jump_draw_of_side);
      Real dx(0);
      Real var(0);
      heston_qe_step(h, s, v_base[side], zv, zx, dx, var);
      dx = with_jump(dx, jump_size);
      base[side].template move<Product>(t, t.log_barrier, dx, var, s.fixing, s.hit_value, u, levels);
      st[side][0].template move<Product>(spot_up, spot_up.log_barrier, dx, var, s.fixing, s.hit_value, u, levels);
      st[side][1].template move<Product>(spot_down, spot_down.log_barrier, dx, var, s.fixing, s.hit_value, u, levels);
      for (int r = 0; r < 2; ++r) {
        Real const dr = r == 0 ? rate_bump : -rate_bump;
        Real const hit = s.hit_value * math::fma(dr, h.maturity - elapsed, Real(1));
        st[side][4 + r].template move<Product>(t, t.log_barrier, math::fma(dr, s.dt, dx), var, s.fixing, hit, u,
                                               levels);
      }
      for (int r = 0; r < 2; ++r) {
        Real dx_v(0);
        Real var_v(0);
        step_row const sv = with_theta_scale(s, r == 0 ? lv.theta_up : lv.theta_down);
        heston_qe_step(h, sv, v_vega[side][r], zv, zx, dx_v, var_v);
        dx_v = with_jump(dx_v, jump_size);
        st[side][2 + r].template move<Product>(t, t.log_barrier, dx_v, var_v, s.fixing, s.hit_value, u, levels);
        // Time: the first step from the host-made rolled steps (shorter, then longer).
        step_row const stime = k == 0 ? steps[t.steps + r] : s;
        Real dx_t(0);
        Real var_t(0);
        heston_qe_step(h, stime, v_time[side][r], zv, zx, dx_t, var_t);
        // The rolled first step's mean jump count is its own.
        dx_t = with_jump(dx_t, k == 0 ? heston_step_jump(t, stime.dt, jump_draw_of_side) : jump_size);
        st[side][6 + r].template move<Product>(t, t.log_barrier, dx_t, var_t, s.fixing, s.hit_value, u, levels);
      }
    }
  };
  for_heston_step_normals<Product>(t, rng, step);
  Real const rate_up = math::exp(-rate_bump * h.maturity);
  Real const time_factor = math::exp(h.rate * eps);
  Real const dS = scenario_bumps<Real>::spot * t.spot;
  basic_greek_values<Real> v{};
  Real price(0);
  for (int side = 0; side < sides; ++side) {
    Real const p0 = base[side].template settle<Product>(t);
    Real p[path_scenarios];
    p[0] = st[side][0].template payoff<Product>(spot_up);
    p[1] = st[side][1].template payoff<Product>(spot_down);
    for (int i = 2; i < path_scenarios; ++i) p[i] = st[side][i].template payoff<Product>(t);
    add_scenario_differences(v, p0, p, dS, heston_vol_bump_of<Real>, rate_up, time_factor, eps);
    price = side == 0 ? p0 : Real(0.5) * (price + p0);
  }
  if constexpr (Antithetic) v = halved(v);
  out = v;
  return price;
}

template <typename NormalStream, typename Real>
MCPRICE_HD MCPRICE_INLINE priced_path_greeks heston_greek_lane(const basic_heston_trade<Real>& h,
                                                               const basic_heston_step<Real>* grid, std::int64_t block,
                                                               int lane)
{
  return greek_lane_of(h, block, lane, [&](std::uint64_t subsequence, basic_greek_values<Real>& v) {
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
