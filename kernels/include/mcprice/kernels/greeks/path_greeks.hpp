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

namespace mcprice {

// Per step of a trade's grid, parallel to its path_step table.
struct alignas(16) path_greek_step {
  float dvol;    // d vol_k / d sigma = (d dw_k / d sigma) / (2 vol_k); 0 where vol_k = 0
  float ddrift;  // -d drift_k / d sigma = (d dw_k / d sigma) / 2
  float time;    // t_k
  float rate;    // r(T) = -ln P(0,T) / T, the trade's (the same in each of its steps)
};

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
inline constexpr float asian_gamma_bump = 0.005F;

// A path's derivatives, carried along next to its path_state.
struct asian_greek_state {
  float y{0.0F};     // dx/dsigma at the current step
  float vsum{0.0F};  // arithmetic: sum over fixings of e^x dx/dsigma
  float rsum{0.0F};  // arithmetic: sum over fixings of e^x t
  float ysum{0.0F};  // geometric: sum over fixings of dx/dsigma
  float tsum{0.0F};  // geometric: sum over fixings of t

  // After the path has stepped to x with normal z.
  MCPRICE_HD MCPRICE_INLINE void step(const path_gbm_trade& t, const path_greek_step& g, float z, float x, bool fixing)
  {
    y = fmaf(g.dvol, z, y) - g.ddrift;
    if (!fixing) return;
    if (t.geometric) {
      ysum += y;
      tsum += g.time;
    } else {
      float const ex = quick_exp(x);
      vsum = fmaf(ex, y, vsum);
      rsum = fmaf(ex, g.time, rsum);
    }
  }
};

struct greek_values {
  float delta, gamma, vega, theta, rho;
};

// d payoff / d average and d payoff / d S_T at spots scaled by c (the strike held).
struct asian_slopes {
  float fa;
  float fs;
};

MCPRICE_HD MCPRICE_INLINE asian_slopes asian_slopes_at(const path_gbm_trade& t, float avg, float s_t, float c)
{
  if (t.floating) {
    bool const in = t.call ? s_t > avg : avg > s_t;
    float const sign = in ? 1.0F : 0.0F;
    return t.call ? asian_slopes{-sign, sign} : asian_slopes{sign, -sign};
  }
  float const a = c * avg;
  if (t.call) return {a > t.strike ? 1.0F : 0.0F, 0.0F};
  return {a < t.strike ? -1.0F : 0.0F, 0.0F};
}

// The five Greeks of one path (units paid at T, per unit notional). first_z: the path's first
// normal; steps/greeks: the trade's first step.
MCPRICE_HD MCPRICE_INLINE greek_values asian_path_greeks(const path_gbm_trade& t, const path_state& s,
                                                         const asian_greek_state& g, float first_z,
                                                         const path_step& first, const path_greek_step& first_g,
                                                         float maturity)
{
  float const n = static_cast<float>(t.fixings);
  float const s_t = t.spot * expf(s.x);
  // Time passing: the first step's log increment moves by shift per unit of time.
  float const shift = -(first.drift + 0.5F * first.vol * first_z) / first_g.time;
  float avg = 0.0F;
  float d_sigma = 0.0F;
  float d_rate = 0.0F;
  float d_time = 0.0F;
  if (t.geometric) {
    avg = t.spot * expf(s.log_sum / n);
    float const later = static_cast<float>(t.fixings - (t.spot_fixing ? 1 : 0));
    d_sigma = avg * g.ysum / n;
    d_rate = avg * g.tsum / n;
    d_time = avg * later * shift / n;
  } else {
    avg = t.spot * s.sum / n;
    d_sigma = t.spot * g.vsum / n;
    d_rate = t.spot * g.rsum / n;
    d_time = t.spot * (s.sum - (t.spot_fixing ? 1.0F : 0.0F)) * shift / n;
  }
  float payoff = 0.0F;
  if (t.floating) payoff = t.call ? fmaxf(s_t - avg, 0.0F) : fmaxf(avg - s_t, 0.0F);
  else payoff = t.call ? fmaxf(avg - t.strike, 0.0F) : fmaxf(t.strike - avg, 0.0F);
  auto const delta_at = [&](float c) {
    asian_slopes const f = asian_slopes_at(t, avg, s_t, c);
    return (f.fa * avg + f.fs * s_t) / t.spot;
  };
  asian_slopes const f = asian_slopes_at(t, avg, s_t, 1.0F);
  greek_values v{};
  v.delta = (f.fa * avg + f.fs * s_t) / t.spot;
  v.gamma =
      (delta_at(1.0F + asian_gamma_bump) - delta_at(1.0F - asian_gamma_bump)) / (2.0F * asian_gamma_bump * t.spot);
  v.vega = f.fa * d_sigma + f.fs * s_t * g.y;
  v.rho = f.fa * d_rate + f.fs * s_t * maturity - maturity * payoff;
  v.theta = first_g.rate * payoff + f.fa * d_time + f.fs * s_t * shift;
  return v;
}

MCPRICE_HD MCPRICE_INLINE void add_greek_sample(path_greek_moments& m, const greek_values& v)
{
  m.delta.add_group(v.delta, 0.0F, 1);
  m.gamma.add_group(v.gamma, 0.0F, 1);
  m.vega.add_group(v.vega, 0.0F, 1);
  m.theta.add_group(v.theta, 0.0F, 1);
  m.rho.add_group(v.rho, 0.0F, 1);
}

// One Asian sample, stepped exactly as path_sample steps it (so the price has the same bits),
// with its Greeks.
template <typename NormalStream, bool Antithetic>
MCPRICE_HD MCPRICE_INLINE float asian_sample_with_greeks(const path_gbm_trade& t, const path_step* grid,
                                                         const path_greek_step* greek_grid, std::uint64_t group,
                                                         greek_values& out)
{
  constexpr path_product asian = path_product::asian;
  NormalStream rng(t.key, group);
  float const log_b = t.log_barrier;
  path_state a = path_state::start(t);
  path_state b = a;
  asian_greek_state ga{};
  asian_greek_state gb{};
  const path_step* steps = grid + t.first_step;
  const path_greek_step* greeks = greek_grid + t.first_step;
  float first_z = 0.0F;
  for_step_normals(rng, t.steps, [&](int k, float z) {
    path_step const s = steps[k];
    path_greek_step const g = greeks[k];
    if (k == 0) first_z = z;
    a.advance<asian>(t, log_b, s, z, 0.0F);
    ga.step(t, g, z, a.x, s.fixing != 0);
    if constexpr (Antithetic) {
      b.advance<asian>(t, log_b, s, -z, 0.0F);
      gb.step(t, g, -z, b.x, s.fixing != 0);
    }
  });
  float const maturity = greeks[t.steps - 1].time;
  greek_values const up = asian_path_greeks(t, a, ga, first_z, steps[0], greeks[0], maturity);
  float const price_up = a.payoff<asian>(t);
  if constexpr (!Antithetic) {
    out = up;
    return price_up;
  } else {
    greek_values const down = asian_path_greeks(t, b, gb, -first_z, steps[0], greeks[0], maturity);
    out = {0.5F * (up.delta + down.delta), 0.5F * (up.gamma + down.gamma), 0.5F * (up.vega + down.vega),
           0.5F * (up.theta + down.theta), 0.5F * (up.rho + down.rho)};
    return 0.5F * (price_up + b.payoff<asian>(t));
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
inline constexpr float scenario_spot_bump = 0.01F;
inline constexpr float scenario_vol_bump = 0.01F;
inline constexpr float scenario_rate_bump = 1e-3F;

// Adds one path's central differences to v from its base payoff p0 and the scenarios' payoffs
// p (order: spot +-, vol +-, rate +-, time -+ i.e. later, earlier): dS the spot bump in money,
// vol_bump the vol scenarios' bump, rate_up = e^{-dr T}, time_factor = e^{r eps}.
MCPRICE_HD MCPRICE_INLINE void add_scenario_differences(greek_values& v, float p0, const float (&p)[path_scenarios],
                                                        float dS, float vol_bump, float rate_up, float time_factor,
                                                        float eps)
{
  v.delta += (p[0] - p[1]) / (2.0F * dS);
  v.gamma += (p[0] - 2.0F * p0 + p[1]) / (dS * dS);
  v.vega += (p[2] - p[3]) / (2.0F * vol_bump);
  v.rho += (p[4] * rate_up - p[5] / rate_up) / (2.0F * scenario_rate_bump);
  v.theta += (p[6] * time_factor - p[7] / time_factor) / (2.0F * eps);
}

// The mean of an antithetic pair's differences.
MCPRICE_HD MCPRICE_INLINE greek_values halved(const greek_values& v)
{
  return {0.5F * v.delta, 0.5F * v.gamma, 0.5F * v.vega, 0.5F * v.theta, 0.5F * v.rho};
}

// The step of scenario i (see above) for step k of the trade.
struct scenario_step {
  float drift;
  float vol;
  float hit_value;
};

MCPRICE_HD MCPRICE_INLINE scenario_step scenario_step_of(int i, int k, const path_step& s, const path_greek_step& g,
                                                         float t_prev, float maturity, float eps)
{
  switch (i) {
    case 2:
      return {fmaf(-scenario_vol_bump, g.ddrift, s.drift), fmaf(scenario_vol_bump, g.dvol, s.vol), s.hit_value};
    case 3:
      return {fmaf(scenario_vol_bump, g.ddrift, s.drift), fmaf(-scenario_vol_bump, g.dvol, s.vol), s.hit_value};
    case 4:
    case 5: {
      float const dr = i == 4 ? scenario_rate_bump : -scenario_rate_bump;
      return {fmaf(dr, g.time - t_prev, s.drift), s.vol, s.hit_value * fmaf(dr, maturity - g.time, 1.0F)};
    }
    case 6:
    case 7: {
      if (k != 0) return {s.drift, s.vol, s.hit_value};
      float const ratio = (g.time + (i == 6 ? -eps : eps)) / g.time;
      return {s.drift * ratio, s.vol * sqrtf(ratio), s.hit_value};
    }
    default:
      return {s.drift, s.vol, s.hit_value};
  }
}

// Scenario i's log jump at step k: the base's, but where the time scenarios shorten or lengthen
// the first step, its mean count moves with it (from the same draw).
MCPRICE_HD MCPRICE_INLINE no_jump scenario_jump(const path_gbm_trade&, const path_step*, const path_greek_step&, int,
                                                int, float, no_jump, no_jump)
{
  return {};
}
MCPRICE_HD MCPRICE_INLINE float scenario_jump(const path_gbm_trade& t, const path_step* steps,
                                              const path_greek_step& first, int i, int k, float eps, float base,
                                              const jump_draw& d)
{
  if (k != 0 || i < 6) return base;
  float const ratio = (first.time + (i == 6 ? -eps : eps)) / first.time;
  return log_jump(t.jumps, steps[t.steps].drift * ratio, d);
}

// The trade as scenario i sees it: spot scenarios move S0, and with it the barrier and a
// seasoned running extreme relative to it (a fresh trade's extreme is today's spot and moves).
MCPRICE_HD MCPRICE_INLINE path_gbm_trade scenario_trade(const path_gbm_trade& t, int i)
{
  if (i > 1) return t;
  float const scale = i == 0 ? 1.0F + scenario_spot_bump : 1.0F - scenario_spot_bump;
  float const shift = logf(scale);
  path_gbm_trade s = t;
  s.spot = t.spot * scale;
  s.log_barrier = t.log_barrier - shift;
  if (t.seasoned) s.log_extreme = t.log_extreme - shift;
  return s;
}

template <typename NormalStream, path_product Product, bool Antithetic>
MCPRICE_HD MCPRICE_INLINE float scenario_sample(const path_gbm_trade& t, const path_step* grid,
                                                const path_greek_step* greek_grid, std::uint64_t group,
                                                greek_values& out)
{
  NormalStream rng(t.key, group);
  float const log_b = t.log_barrier;
  const path_step* steps = grid + t.first_step;
  const path_greek_step* greeks = greek_grid + t.first_step;
  float const maturity = greeks[t.steps - 1].time;
  float const eps = fminf(1.0F / 365.0F, 0.5F * greeks[0].time);
  path_gbm_trade const spot_up = scenario_trade(t, 0);
  path_gbm_trade const spot_down = scenario_trade(t, 1);
  auto trade_of = [&](int i) -> const path_gbm_trade& { return i == 0 ? spot_up : i == 1 ? spot_down : t; };
  constexpr int sides = Antithetic ? 2 : 1;
  path_state base[sides];
  path_state st[sides][path_scenarios];
  for (int side = 0; side < sides; ++side) {
    base[side] = path_state::start(t);
    MCPRICE_UNROLL
    for (int i = 0; i < path_scenarios; ++i) st[side][i] = path_state::start(trade_of(i));
  }
  auto const levels = observation_rows_of(steps, t);
  auto step = [&](int k, float z, float u, auto jump) {
    path_step const s = steps[k];
    path_greek_step const g = greeks[k];
    float const t_prev = k == 0 ? 0.0F : greeks[k - 1].time;
    // Each side's jump once a step; the scenarios share it (the time scenarios' first step aside).
    auto const jump_a = gbm_step_jump(t, steps, k, jump);
    auto const jump_b = gbm_step_jump(t, steps, k, jump.antithetic());
    base[0].template advance<Product>(t, log_b, s, z, u, jump_a, levels);
    if constexpr (Antithetic) base[1].template advance<Product>(t, log_b, s, -z, u, jump_b, levels);
    MCPRICE_UNROLL
    for (int i = 0; i < path_scenarios; ++i) {
      scenario_step const c = scenario_step_of(i, k, s, g, t_prev, maturity, eps);
      const path_gbm_trade& ti = trade_of(i);
      for (int side = 0; side < sides; ++side) {
        float const zs = side == 0 ? z : -z;
        float const dx = with_jump(fmaf(c.vol, zs, c.drift),
                                   scenario_jump(t, steps, greeks[0], i, k, eps, side == 0 ? jump_a : jump_b,
                                                 side == 0 ? jump : jump.antithetic()));
        st[side][i].template move<Product>(ti, ti.log_barrier, dx, c.vol * c.vol, s.fixing, c.hit_value, u, levels);
      }
    }
  };
  for_path_step_normals<Product>(t, rng, step);
  float const rate = greeks[0].rate;
  float const rate_up = expf(-scenario_rate_bump * maturity);
  float const time_factor = expf(rate * eps);
  greek_values v{};
  float price = 0.0F;
  for (int side = 0; side < sides; ++side) {
    float p[path_scenarios];
    MCPRICE_UNROLL
    for (int i = 0; i < path_scenarios; ++i) p[i] = st[side][i].template payoff<Product>(trade_of(i));
    float const p0 = base[side].template settle<Product>(t);
    add_scenario_differences(v, p0, p, scenario_spot_bump * t.spot, scenario_vol_bump, rate_up, time_factor, eps);
    price = side == 0 ? p0 : 0.5F * (price + p0);
  }
  if constexpr (Antithetic) v = halved(v);
  out = v;
  return price;
}

// A lane of a path trade with Greeks (both kinds price with the bits of path_lane). Asians and
// scenario-lane products go to separate kernels: the scenario lanes' registers would otherwise
// set the Asian kernel's occupancy.
template <typename SampleWithGreeks>
MCPRICE_HD MCPRICE_INLINE priced_path_greeks greek_lane_of(const path_gbm_trade& t, std::int64_t block, int lane,
                                                           SampleWithGreeks&& sample)
{
  constexpr int d = own_subsequence_normals;
  priced_path_greeks m{};
  for (int g = 0; g < layout::groups_per_lane(d); ++g) {
    std::int64_t const group = layout::group_index(block, g, lane, d);
    if (group >= t.samples) break;
    greek_values v{};
    float const price = sample(static_cast<std::uint64_t>(group), v);
    m.price.add_group(price, 0.0F, 1);
    add_greek_sample(m.greeks, v);
  }
  return m;
}

// Asians only.
template <typename NormalStream>
MCPRICE_HD MCPRICE_INLINE priced_path_greeks asian_greek_lane(const path_gbm_trade& t, const path_step* grid,
                                                              const path_greek_step* greek_grid, std::int64_t block,
                                                              int lane)
{
  return greek_lane_of(t, block, lane, [&](std::uint64_t subsequence, greek_values& v) {
    return t.antithetic ? asian_sample_with_greeks<NormalStream, true>(t, grid, greek_grid, subsequence, v)
                        : asian_sample_with_greeks<NormalStream, false>(t, grid, greek_grid, subsequence, v);
  });
}

// Barriers, touches and lookbacks.
template <typename NormalStream>
MCPRICE_HD MCPRICE_INLINE priced_path_greeks scenario_greek_lane(const path_gbm_trade& t, const path_step* grid,
                                                                 const path_greek_step* greek_grid, std::int64_t block,
                                                                 int lane)
{
  return greek_lane_of(t, block, lane, [&](std::uint64_t subsequence, greek_values& v) {
    return with_path_product(t.product, [&](auto product) {
      constexpr path_product P = decltype(product)::value;
      return t.antithetic ? scenario_sample<NormalStream, P, true>(t, grid, greek_grid, subsequence, v)
                          : scenario_sample<NormalStream, P, false>(t, grid, greek_grid, subsequence, v);
    });
  });
}

}  // namespace mcprice
