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
#include "mcprice/kernels/path_gbm.hpp"

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

struct path_greek_moments_sum {
  MCPRICE_HD MCPRICE_INLINE path_greek_moments operator()(const path_greek_moments& a, const path_greek_moments& b) const
  {
    return a + b;
  }
};

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
  v.gamma = (delta_at(1.0F + asian_gamma_bump) - delta_at(1.0F - asian_gamma_bump)) / (2.0F * asian_gamma_bump * t.spot);
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

// A lane of a path trade with Greeks: Asians get theirs, other path products their price alone
// (zero Greek sums; the engine reports no Greeks for them).
template <typename NormalStream>
MCPRICE_HD MCPRICE_INLINE priced_path_greeks path_greek_lane(const path_gbm_trade& t, const path_step* grid,
                                                             const path_greek_step* greek_grid, std::int64_t block,
                                                             int lane)
{
  if (t.product != path_product::asian) return {path_lane<NormalStream>(t, grid, block, lane), {}};
  constexpr int d = own_subsequence_normals;
  priced_path_greeks m{};
  for (int g = 0; g < layout::groups_per_lane(d); ++g) {
    std::int64_t const group = layout::group_index(block, g, lane, d);
    if (group >= t.samples) break;
    greek_values v{};
    float const price = t.antithetic
                            ? asian_sample_with_greeks<NormalStream, true>(t, grid, greek_grid, static_cast<std::uint64_t>(group), v)
                            : asian_sample_with_greeks<NormalStream, false>(t, grid, greek_grid, static_cast<std::uint64_t>(group), v);
    m.price.add_group(price, 0.0F, 1);
    add_greek_sample(m.greeks, v);
  }
  return m;
}

}  // namespace mcprice
