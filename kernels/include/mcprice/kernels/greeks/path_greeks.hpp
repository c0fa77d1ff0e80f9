#pragma once
// Greeks of Asians under GBM in the price's pass, from the path's own normals (docs/greeks.md).
//
// A path's log spots x_k respond to the inputs in closed form, so the kernel carries their
// derivatives along the path next to the path itself:
//   spot:  every S_k scales with S0 (pathwise delta); gamma is the central difference of that
//          pathwise delta at S0 (1 +- h), a rescaling of the same path (no re-simulation);
//   vol:   dx_k/dsigma = sum_{j<=k} (dvol_j z_j - ddrift_j) for a parallel shift of the Black vol
//          curve (flat vol: W_t - sigma t);
//   rate:  dx_k/dr = t_k for a parallel shift of the discount curve, and the discount gives -T P;
//   time:  as calendar time passes, the first step shortens (its zero rate, dividend yield and
//          Black vol held), which moves every later x_k by the same dx/deps; the discount gives r(T) P.
// The Greeks are of the plain payoff: the arithmetic Asian's control variate steadies its price,
// not its Greeks. Each sample's five Greeks are summed like prices (sum, sum of squares).
#include "mcprice/kernels/models/path_gbm.hpp"

#include <type_traits>

namespace mcprice {

// Per step of a trade's grid, parallel to its path_step table. Real: the path precision (float,
// or double for --precision double); the unprefixed names below are the float instances.
template <typename Real>
struct alignas(16) basic_path_greek_step {
  Real dvol;    // d vol_k / d sigma = (d dw_k / d sigma) / (2 vol_k); 0 where vol_k = 0
  Real ddrift;  // -d drift_k / d sigma = (d dw_k / d sigma) / 2
  Real time;    // t_k
  Real rate;    // r(T) = -ln P(0,T) / T, the trade's (the same in each of its steps)
};
using path_greek_step = basic_path_greek_step<float>;

struct path_greek_moments {
  moments delta;
  moments gamma;
  moments vega;
  moments theta;
  moments rho;
};

MCPRICE_HD MCPRICE_INLINE path_greek_moments operator+(const path_greek_moments& a, const path_greek_moments& b)
{
  return {a.delta + b.delta, a.gamma + b.gamma, a.vega + b.vega, a.theta + b.theta, a.rho + b.rho};
}

struct priced_path_greeks {
  moments price;
  path_greek_moments greeks;
};

MCPRICE_HD MCPRICE_INLINE priced_path_greeks operator+(const priced_path_greeks& a, const priced_path_greeks& b)
{
  return {a.price + b.price, a.greeks + b.greeks};
}

// The relative spot bump of the gamma difference: its bias is about h^2/6 of gamma's third
// derivative term (below 1e-4 relative for an at-the-money Asian with 20% vol, T = 1).
template <typename Real>
inline constexpr Real asian_gamma_bump_of = Real(0.005);
inline constexpr float asian_gamma_bump = asian_gamma_bump_of<float>;

// A path's derivatives, carried along next to its path_state.
template <typename Real>
struct basic_asian_greek_state {
  Real y{0};     // dx/dsigma at the current step
  Real vsum{0};  // arithmetic: sum over fixings of e^x dx/dsigma
  Real rsum{0};  // arithmetic: sum over fixings of e^x t
  Real ysum{0};  // geometric: sum over fixings of dx/dsigma
  Real tsum{0};  // geometric: sum over fixings of t

  // After the path has stepped to x with normal z.
  MCPRICE_HD MCPRICE_INLINE void step(const basic_path_gbm_trade<Real>& t, const basic_path_greek_step<Real>& g, Real z,
                                      Real x, bool fixing)
  {
    y = math::fma(g.dvol, z, y) - g.ddrift;
    if (!fixing) return;
    if (t.geometric) {
      ysum += y;
      tsum += g.time;
    } else {
      Real const ex = quick_exp(x);
      vsum = math::fma(ex, y, vsum);
      rsum = math::fma(ex, g.time, rsum);
    }
  }
};
using asian_greek_state = basic_asian_greek_state<float>;

template <typename Real>
struct basic_greek_values {
  Real delta, gamma, vega, theta, rho;
};
using greek_values = basic_greek_values<float>;

// d payoff / d average and d payoff / d S_T at spots scaled by c (the strike held).
template <typename Real>
struct asian_slopes {
  Real fa;
  Real fs;
};

template <typename Real>
MCPRICE_HD MCPRICE_INLINE asian_slopes<Real> asian_slopes_at(const basic_path_gbm_trade<Real>& t, Real avg, Real s_t,
                                                             Real c)
{
  Real const one(1);
  Real const zero(0);
  if (t.floating) {
    bool const in = t.call ? s_t > avg : avg > s_t;
    Real const sign = in ? one : zero;
    return t.call ? asian_slopes<Real>{-sign, sign} : asian_slopes<Real>{sign, -sign};
  }
  Real const a = c * avg;
  if (t.call) return {a > t.strike ? one : zero, zero};
  return {a < t.strike ? -one : zero, zero};
}

// The five Greeks of one path (units paid at T, per unit notional). first_z: the path's first
// normal; steps/greeks: the trade's first step.
template <typename Real>
MCPRICE_HD MCPRICE_INLINE basic_greek_values<Real> asian_path_greeks(const basic_path_gbm_trade<Real>& t,
                                                                     const basic_path_state<Real>& s,
                                                                     const basic_asian_greek_state<Real>& g,
                                                                     Real first_z, const basic_path_step<Real>& first,
                                                                     const basic_path_greek_step<Real>& first_g,
                                                                     Real maturity)
{
  Real const zero(0);
  Real const n = static_cast<Real>(t.fixings);
  Real const s_t = t.spot * math::exp(s.x);
  // Time passing: the first step's log increment moves by shift per unit of time.
  Real const shift = -(first.drift + Real(0.5) * first.vol * first_z) / first_g.time;
  Real avg = zero;
  Real d_sigma = zero;
  Real d_rate = zero;
  Real d_time = zero;
  if (t.geometric) {
    avg = t.spot * math::exp(s.log_sum / n);
    Real const later = static_cast<Real>(t.fixings - (t.spot_fixing ? 1 : 0));
    d_sigma = avg * g.ysum / n;
    d_rate = avg * g.tsum / n;
    d_time = avg * later * shift / n;
  } else {
    avg = t.spot * s.sum / n;
    d_sigma = t.spot * g.vsum / n;
    d_rate = t.spot * g.rsum / n;
    d_time = t.spot * (s.sum - (t.spot_fixing ? Real(1) : zero)) * shift / n;
  }
  Real payoff = zero;
  if (t.floating) payoff = t.call ? math::fmax(s_t - avg, zero) : math::fmax(avg - s_t, zero);
  else payoff = t.call ? math::fmax(avg - t.strike, zero) : math::fmax(t.strike - avg, zero);
  auto const delta_at = [&](Real c) {
    asian_slopes<Real> const f = asian_slopes_at(t, avg, s_t, c);
    return (f.fa * avg + f.fs * s_t) / t.spot;
  };
  asian_slopes<Real> const f = asian_slopes_at(t, avg, s_t, Real(1));
  constexpr Real bump = asian_gamma_bump_of<Real>;
  basic_greek_values<Real> v{};
  v.delta = (f.fa * avg + f.fs * s_t) / t.spot;
  v.gamma = (delta_at(Real(1) + bump) - delta_at(Real(1) - bump)) / (Real(2) * bump * t.spot);
  v.vega = f.fa * d_sigma + f.fs * s_t * g.y;
  v.rho = f.fa * d_rate + f.fs * s_t * maturity - maturity * payoff;
  v.theta = first_g.rate * payoff + f.fa * d_time + f.fs * s_t * shift;
  return v;
}

template <typename Real>
MCPRICE_HD MCPRICE_INLINE void add_greek_sample(path_greek_moments& m, const basic_greek_values<Real>& v)
{
  m.delta.add_group(v.delta, Real(0), 1);
  m.gamma.add_group(v.gamma, Real(0), 1);
  m.vega.add_group(v.vega, Real(0), 1);
  m.theta.add_group(v.theta, Real(0), 1);
  m.rho.add_group(v.rho, Real(0), 1);
}

// One Asian sample, stepped exactly as path_sample steps it (so the price has the same bits),
// with its Greeks.
template <typename NormalStream, bool Antithetic, typename Real>
MCPRICE_HD MCPRICE_INLINE Real asian_sample_with_greeks(const basic_path_gbm_trade<Real>& t,
                                                        const basic_path_step<Real>* grid,
                                                        const basic_path_greek_step<Real>* greek_grid,
                                                        std::uint64_t group, basic_greek_values<Real>& out)
{
  constexpr path_product asian = path_product::asian;
  NormalStream rng(t.key, group);
  Real const log_b = t.log_barrier;
  basic_path_state<Real> a = basic_path_state<Real>::start(t);
  basic_path_state<Real> b = a;
  basic_asian_greek_state<Real> ga{};
  basic_asian_greek_state<Real> gb{};
  const basic_path_step<Real>* steps = grid + t.first_step;
  const basic_path_greek_step<Real>* greeks = greek_grid + t.first_step;
  Real first_z = Real(0);
  for_step_normals<Real>(rng, t.steps, [&](int k, Real z) {
    basic_path_step<Real> const s = steps[k];
    basic_path_greek_step<Real> const g = greeks[k];
    if (k == 0) first_z = z;
    a.template advance<asian>(t, log_b, s, z, Real(0));
    ga.step(t, g, z, a.x, s.fixing != 0);
    if constexpr (Antithetic) {
      b.template advance<asian>(t, log_b, s, -z, Real(0));
      gb.step(t, g, -z, b.x, s.fixing != 0);
    }
  });
  Real const maturity = greeks[t.steps - 1].time;
  basic_greek_values<Real> const up = asian_path_greeks(t, a, ga, first_z, steps[0], greeks[0], maturity);
  Real const price_up = a.template payoff<asian>(t);
  if constexpr (!Antithetic) {
    out = up;
    return price_up;
  } else {
    basic_greek_values<Real> const down = asian_path_greeks(t, b, gb, -first_z, steps[0], greeks[0], maturity);
    Real const half(0.5);
    out = {half * (up.delta + down.delta), half * (up.gamma + down.gamma), half * (up.vega + down.vega),
           half * (up.theta + down.theta), half * (up.rho + down.rho)};
    return half * (price_up + b.template payoff<asian>(t));
  }
}

// Barriers, touches and lookbacks: scenario lanes. Each path is stepped once for the price and
// once more per scenario, all from the same normals (common random numbers), and the Greeks are
// central differences of the scenarios' payoffs: spot +-1% (the path in log spot relative to
// S0 is the same; the barrier and the running extreme move relative to it), vol +-0.01 and rate
// +-1e-3 (each step's drift and vol moved along their derivatives in path_greek_step), and time
// +-eps (the first step shortened or lengthened by eps = min(1 day, t_1 / 2)). Continuous
// barriers are weighted by the bridge's survival probability, which is continuous in the path,
// so their differences stay bounded; discrete monitoring is not, and its Greeks are noisier.
inline constexpr int path_scenarios = 8;
template <typename Real>
struct scenario_bumps {
  static constexpr Real spot = Real(0.01);
  static constexpr Real vol = Real(0.01);
  static constexpr Real rate = Real(1e-3);
};
inline constexpr float scenario_spot_bump = scenario_bumps<float>::spot;
inline constexpr float scenario_vol_bump = scenario_bumps<float>::vol;
inline constexpr float scenario_rate_bump = scenario_bumps<float>::rate;

// Adds one path's central differences to v from its base payoff p0 and the scenarios' payoffs
// p (order: spot +-, vol +-, rate +-, time -+ i.e. later, earlier): dS the spot bump in money,
// vol_bump the vol scenarios' bump, rate_up = e^{-dr T}, time_factor = e^{r eps}.
template <typename Real>
MCPRICE_HD MCPRICE_INLINE void add_scenario_differences(basic_greek_values<Real>& v, Real p0,
                                                        const Real (&p)[path_scenarios], Real dS, Real vol_bump,
                                                        Real rate_up, Real time_factor, Real eps)
{
  Real const two(2);
  v.delta += (p[0] - p[1]) / (two * dS);
  v.gamma += (p[0] - two * p0 + p[1]) / (dS * dS);
  v.vega += (p[2] - p[3]) / (two * vol_bump);
  v.rho += (p[4] * rate_up - p[5] / rate_up) / (two * scenario_bumps<Real>::rate);
  v.theta += (p[6] * time_factor - p[7] / time_factor) / (two * eps);
}

// The mean of an antithetic pair's differences.
template <typename Real>
MCPRICE_HD MCPRICE_INLINE basic_greek_values<Real> halved(const basic_greek_values<Real>& v)
{
  Real const half(0.5);
  return {half * v.delta, half * v.gamma, half * v.vega, half * v.theta, half * v.rho};
}

// The step of scenario i (see above) for step k of the trade.
template <typename Real>
struct basic_scenario_step {
  Real drift;
  Real vol;
  Real hit_value;
};
using scenario_step = basic_scenario_step<float>;

template <typename Real>
MCPRICE_HD MCPRICE_INLINE basic_scenario_step<Real> scenario_step_of(int i, int k, const basic_path_step<Real>& s,
                                                               const basic_path_greek_step<Real>& g, Real t_prev,
                                                               Real maturity, Real eps)
{
  constexpr Real vol_bump = scenario_bumps<Real>::vol;
  switch (i) {
    case 2:
      return {math::fma(-vol_bump, g.ddrift, s.drift), math::fma(vol_bump, g.dvol, s.vol), s.hit_value};
    case 3:
      return {math::fma(vol_bump, g.ddrift, s.drift), math::fma(-vol_bump, g.dvol, s.vol), s.hit_value};
    case 4:
    case 5: {
      Real const dr = i == 4 ? scenario_bumps<Real>::rate : -scenario_bumps<Real>::rate;
      return {math::fma(dr, g.time - t_prev, s.drift), s.vol, s.hit_value * math::fma(dr, maturity - g.time, Real(1))};
    }
    case 6:
    case 7: {
      if (k != 0) return {s.drift, s.vol, s.hit_value};
      Real const ratio = (g.time + (i == 6 ? -eps : eps)) / g.time;
      return {s.drift * ratio, s.vol * math::sqrt(ratio), s.hit_value};
    }
    default:
      return {s.drift, s.vol, s.hit_value};
  }
}

// Scenario i's log jump at step k: the base's, but where the time scenarios shorten or lengthen
// the first step, its mean count moves with it (from the same draw).
template <typename Real>
MCPRICE_HD MCPRICE_INLINE no_jump scenario_jump(const basic_path_gbm_trade<Real>&, const basic_path_step<Real>*,
                                                const basic_path_greek_step<Real>&, int, int, Real, no_jump, no_jump)
{
  return {};
}
template <typename Real>
MCPRICE_HD MCPRICE_INLINE Real scenario_jump(const basic_path_gbm_trade<Real>& t, const basic_path_step<Real>* steps,
                                             const basic_path_greek_step<Real>& first, int i, int k, Real eps, Real base,
                                             const jump_draw& d)
{
  if (k != 0 || i < 6) return base;
  Real const ratio = (first.time + (i == 6 ? -eps : eps)) / first.time;
  return log_jump(t.jumps, steps[t.steps].drift * ratio, d);
}

// The trade as scenario i sees it: spot scenarios move S0, and with it the barrier and a
// seasoned running extreme relative to it (a fresh trade's extreme is today's spot and moves).
template <typename Real>
MCPRICE_HD MCPRICE_INLINE basic_path_gbm_trade<Real> scenario_trade(const basic_path_gbm_trade<Real>& t, int i)
{
  if (i > 1) return t;
  Real const scale = i == 0 ? Real(1) + scenario_bumps<Real>::spot : Real(1) - scenario_bumps<Real>::spot;
  // logf itself in float: a wrapper kept nvcc from folding the constant log, whose runtime
  // value may differ in the last bit (the float Greeks keep their bits).
  Real shift;
  if constexpr (std::is_same_v<Real, float>) shift = logf(scale);
  else shift = math::log(scale);
  basic_path_gbm_trade<Real> s = t;
  s.spot = t.spot * scale;
  s.log_barrier = t.log_barrier - shift;
  if (t.seasoned) s.log_extreme = t.log_extreme - shift;
  return s;
}

template <typename NormalStream, path_product Product, bool Antithetic, typename Real>
MCPRICE_HD MCPRICE_INLINE Real scenario_sample(const basic_path_gbm_trade<Real>& t, const basic_path_step<Real>* grid,
                                               const basic_path_greek_step<Real>* greek_grid, std::uint64_t group,
                                               basic_greek_values<Real>& out)
{
  using record = basic_path_gbm_trade<Real>;
  using state = basic_path_state<Real>;
  NormalStream rng(t.key, group);
  Real const log_b = t.log_barrier;
  const basic_path_step<Real>* steps = grid + t.first_step;
  const basic_path_greek_step<Real>* greeks = greek_grid + t.first_step;
  Real const maturity = greeks[t.steps - 1].time;
  Real const eps = math::fmin(Real(1) / Real(365), Real(0.5) * greeks[0].time);
  record const spot_up = scenario_trade(t, 0);
  record const spot_down = scenario_trade(t, 1);
  auto trade_of = [&](int i) -> const record& { return i == 0 ? spot_up : i == 1 ? spot_down : t; };
  constexpr int sides = Antithetic ? 2 : 1;
  state base[sides];
  state st[sides][path_scenarios];
  for (int side = 0; side < sides; ++side) {
    base[side] = state::start(t);
    MCPRICE_UNROLL
    for (int i = 0; i < path_scenarios; ++i) st[side][i] = state::start(trade_of(i));
  }
  auto const levels = observation_rows_of(steps, t);
  auto step = [&](int k, Real z, Real u, auto jump) {
    basic_path_step<Real> const s = steps[k];
    basic_path_greek_step<Real> const g = greeks[k];
    Real const t_prev = k == 0 ? Real(0) : greeks[k - 1].time;
    // Each side's jump once a step; the scenarios share it (the time scenarios' first step aside).
    auto const jump_a = gbm_step_jump(t, steps, k, jump);
    auto const jump_b = gbm_step_jump(t, steps, k, jump.antithetic());
    base[0].template advance<Product>(t, log_b, s, z, u, jump_a, levels);
    if constexpr (Antithetic) base[1].template advance<Product>(t, log_b, s, -z, u, jump_b, levels);
    MCPRICE_UNROLL
    for (int i = 0; i < path_scenarios; ++i) {
      basic_scenario_step<Real> const c = scenario_step_of(i, k, s, g, t_prev, maturity, eps);
      const record& ti = trade_of(i);
      for (int side = 0; side < sides; ++side) {
        Real const zs = side == 0 ? z : -z;
        Real const dx = with_jump(math::fma(c.vol, zs, c.drift),
                                   scenario_jump(t, steps, greeks[0], i, k, eps, side == 0 ? jump_a : jump_b,
                                                 side == 0 ? jump : jump.antithetic()));
        st[side][i].template move<Product>(ti, ti.log_barrier, dx, c.vol * c.vol, s.fixing, c.hit_value, u, levels);
      }
    }
  };
  for_path_step_normals<Product>(t, rng, step);
  Real const rate = greeks[0].rate;
  Real const rate_up = math::exp(-scenario_bumps<Real>::rate * maturity);
  Real const time_factor = math::exp(rate * eps);
  basic_greek_values<Real> v{};
  Real price = Real(0);
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

// A lane of a path trade with Greeks (both kinds price with the bits of path_lane). Asians and
// scenario-lane products go to separate kernels: the scenario lanes' registers would otherwise
// set the Asian kernel's occupancy.
template <typename Real, typename SampleWithGreeks>
MCPRICE_HD MCPRICE_INLINE priced_path_greeks greek_lane_of(const basic_path_gbm_trade<Real>& t, std::int64_t block,
                                                           int lane, SampleWithGreeks&& sample)
{
  constexpr int d = own_subsequence_normals;
  priced_path_greeks m{};
  for (int g = 0; g < layout::groups_per_lane(d); ++g) {
    std::int64_t const group = layout::group_index(block, g, lane, d);
    if (group >= t.samples) break;
    basic_greek_values<Real> v{};
    Real const price = sample(static_cast<std::uint64_t>(group), v);
    m.price.add_group(price, Real(0), 1);
    add_greek_sample(m.greeks, v);
  }
  return m;
}

// Asians only.
template <typename NormalStream, typename Real>
MCPRICE_HD MCPRICE_INLINE priced_path_greeks asian_greek_lane(const basic_path_gbm_trade<Real>& t,
                                                              const basic_path_step<Real>* grid,
                                                              const basic_path_greek_step<Real>* greek_grid,
                                                              std::int64_t block, int lane)
{
  return greek_lane_of(t, block, lane, [&](std::uint64_t subsequence, basic_greek_values<Real>& v) {
    return t.antithetic ? asian_sample_with_greeks<NormalStream, true>(t, grid, greek_grid, subsequence, v)
                        : asian_sample_with_greeks<NormalStream, false>(t, grid, greek_grid, subsequence, v);
  });
}

// Barriers, touches and lookbacks.
template <typename NormalStream, typename Real>
MCPRICE_HD MCPRICE_INLINE priced_path_greeks scenario_greek_lane(const basic_path_gbm_trade<Real>& t,
                                                                 const basic_path_step<Real>* grid,
                                                                 const basic_path_greek_step<Real>* greek_grid,
                                                                 std::int64_t block, int lane)
{
  return greek_lane_of(t, block, lane, [&](std::uint64_t subsequence, basic_greek_values<Real>& v) {
    return with_path_product(t.product, [&](auto product) {
      constexpr path_product P = decltype(product)::value;
      return t.antithetic ? scenario_sample<NormalStream, P, true>(t, grid, greek_grid, subsequence, v)
                          : scenario_sample<NormalStream, P, false>(t, grid, greek_grid, subsequence, v);
    });
  });
}

}  // namespace mcprice
