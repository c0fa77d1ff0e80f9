#pragma once
// Price and Greeks of a European under Black-Scholes from one pass over the same normals.
//
// Every Greek of a European payoff f(S_T) under GBM follows from three per-sample channels:
// the payoff P, a delta channel D and a gamma channel G, with z the sample's normal and
// a = sqrt(w) the log-stdev to T:
//   call/put (Lipschitz payoff): pathwise.   D = f'(S_T) S_T,  G = D (z - a)
//     delta = D / S0, gamma = G / (S0^2 a) (pathwise delta differentiated by likelihood ratio),
//     vega = sqrt(T) G (pathwise: dS_T/dsigma = S_T sqrt(T) (z - a)).
//   digitals (discontinuous): likelihood ratio.  D = P z,  G = P (z^2 - 1 - a z)
//     delta = D / (S0 a), gamma = G / (S0^2 a^2), vega = G / sigma.
// Rho and theta are exact linear combinations (rho = T (S0 delta - V); theta from the
// Black-Scholes equation: r V - (r - q) S0 delta - sigma^2 S0^2 gamma / 2), so no bumped
// scenario is simulated and no extra exponential is taken per path; the host turns the
// channels' sums and cross products into each Greek and its standard error
// (engine/src/greek_statistics.cpp). The price channel is accumulated exactly as without
// Greeks, so a price has the same bits with and without them.
#include "mcprice/kernels/models/european_gbm.hpp"

namespace mcprice {

// Sums over samples of the delta and gamma channels and the cross products that the
// standard errors of linear combinations need (the price's own sums stay in `moments`).
struct greek_moments {
  double sum_d{0.0};
  double sum_g{0.0};
  double dd{0.0};
  double gg{0.0};
  double pd{0.0};
  double pg{0.0};
  double dg{0.0};
};

MCPRICE_HD MCPRICE_INLINE greek_moments operator+(const greek_moments& a, const greek_moments& b)
{
  return {a.sum_d + b.sum_d, a.sum_g + b.sum_g, a.dd + b.dd, a.gg + b.gg, a.pd + b.pd, a.pg + b.pg, a.dg + b.dg};
}

// What a lane (or a block, a segment, a trade) sums: the price's moments and the Greeks'.
struct priced_greeks {
  moments price;
  greek_moments greeks;
};

MCPRICE_HD MCPRICE_INLINE priced_greeks operator+(const priced_greeks& a, const priced_greeks& b)
{
  return {a.price + b.price, a.greeks + b.greeks};
}

// Whether a payoff's Greeks are pathwise (Lipschitz payoffs) or likelihood-ratio ones.
MCPRICE_HD MCPRICE_INLINE constexpr bool pathwise_greeks(terminal_payoff kind)
{
  return kind == terminal_payoff::call || kind == terminal_payoff::put;
}

// f'(s) s for the Lipschitz payoffs.
template <terminal_payoff Kind>
MCPRICE_HD MCPRICE_INLINE float spot_sensitivity(const terminal_payoff_params& p, float s)
{
  if constexpr (Kind == terminal_payoff::call) return s > p.strike ? s : 0.0F;
  else return p.strike > s ? -s : 0.0F;
}

// The delta and gamma channels of one path with normal z and terminal spot s (payoff value p).
template <terminal_payoff Kind>
MCPRICE_HD MCPRICE_INLINE void greek_channels(const terminal_payoff_params& params, float a, float z, float s, float p,
                                              float& d, float& g)
{
  if constexpr (pathwise_greeks(Kind)) {
    d = spot_sensitivity<Kind>(params, s);
    g = d * (z - a);
  } else {
    d = p * z;
    g = p * fmaf(z, z - a, -1.0F);
  }
}

// Adds one group of samples (count of Per valid) to the Greek sums: like add_draw, the
// group's cross products are formed from deviations from the group's means in float, and
// the means' product is added in double.
template <int Per>
MCPRICE_HD MCPRICE_INLINE void add_greek_draw(greek_moments& m, const float (&p)[Per], const float (&d)[Per],
                                              const float (&g)[Per], int count)
{
  float sp = 0.0F;
  float sd = 0.0F;
  float sg = 0.0F;
  MCPRICE_UNROLL
  for (int j = 0; j < Per; ++j) {
    sp += p[j];
    sd += d[j];
    sg += g[j];
  }
  float const inv = count == Per ? 1.0F / Per : 1.0F / static_cast<float>(count);
  float const mp = sp * inv;
  float const md = sd * inv;
  float const mg = sg * inv;
  float dd = 0.0F;
  float gg = 0.0F;
  float pd = 0.0F;
  float pg = 0.0F;
  float dg = 0.0F;
  MCPRICE_UNROLL
  for (int j = 0; j < Per; ++j) {
    bool const in = j < count;
    float const ep = in ? p[j] - mp : 0.0F;
    float const ed = in ? d[j] - md : 0.0F;
    float const eg = in ? g[j] - mg : 0.0F;
    dd = fmaf(ed, ed, dd);
    gg = fmaf(eg, eg, gg);
    pd = fmaf(ep, ed, pd);
    pg = fmaf(ep, eg, pg);
    dg = fmaf(ed, eg, dg);
  }
  double const n_inv = count == Per ? 1.0 / Per : 1.0 / static_cast<double>(count);
  double const SP = sp;
  double const SD = sd;
  double const SG = sg;
  m.sum_d += SD;
  m.sum_g += SG;
  m.dd += static_cast<double>(dd) + SD * SD * n_inv;
  m.gg += static_cast<double>(gg) + SG * SG * n_inv;
  m.pd += static_cast<double>(pd) + SP * SD * n_inv;
  m.pg += static_cast<double>(pg) + SP * SG * n_inv;
  m.dg += static_cast<double>(dg) + SD * SG * n_inv;
}

// The fused lane with Greeks: the same normals, spots and payoffs as european_lane_of (so the
// same price moments), plus each sample's delta and gamma channels.
template <typename NormalStream, terminal_payoff Kind, bool Antithetic>
MCPRICE_HD MCPRICE_INLINE priced_greeks european_greek_lane_of(const european_gbm_trade& t, float a, std::int64_t block,
                                                               int lane)
{
  constexpr int per = european_samples_per_group;
  priced_greeks m{};
  for_lane_groups(t.samples, block, lane, [&](std::int64_t group, int count) {
    NormalStream rng(t.key, static_cast<std::uint64_t>(group));
    auto const z = rng.next4();
    float const zs[4] = {z.x, z.y, z.z, z.w};
    float x[per];
    float d[per];
    float g[per];
    MCPRICE_UNROLL
    for (int j = 0; j < per; ++j) {
      float obs[max_observations_per_sample];
      observe<Antithetic>(t, zs[j], obs);
      x[j] = j < count ? sample_payoff<Kind, Antithetic>(t, obs) : 0.0F;
      float const up = evaluate<Kind>(t.payoff, obs[0]);
      greek_channels<Kind>(t.payoff, a, zs[j], obs[0], up, d[j], g[j]);
      if constexpr (Antithetic) {
        float d_down = 0.0F;
        float g_down = 0.0F;
        greek_channels<Kind>(t.payoff, a, -zs[j], obs[1], evaluate<Kind>(t.payoff, obs[1]), d_down, g_down);
        d[j] = 0.5F * (d[j] + d_down);
        g[j] = 0.5F * (g[j] + g_down);
      }
      if (j >= count) {
        d[j] = 0.0F;
        g[j] = 0.0F;
      }
    }
    add_draw<per>(m.price, x, count);
    add_greek_draw<per>(m.greeks, x, d, g, count);
  });
  return m;
}

template <typename NormalStream, bool Antithetic>
MCPRICE_HD MCPRICE_INLINE priced_greeks european_greek_lane_sampled(const european_gbm_trade& t, float a,
                                                                    std::int64_t block, int lane)
{
  using K = terminal_payoff;
  switch (t.payoff.kind) {
    case K::put:
      return european_greek_lane_of<NormalStream, K::put, Antithetic>(t, a, block, lane);
    case K::cash_digital_call:
      return european_greek_lane_of<NormalStream, K::cash_digital_call, Antithetic>(t, a, block, lane);
    case K::cash_digital_put:
      return european_greek_lane_of<NormalStream, K::cash_digital_put, Antithetic>(t, a, block, lane);
    case K::asset_digital_call:
      return european_greek_lane_of<NormalStream, K::asset_digital_call, Antithetic>(t, a, block, lane);
    case K::asset_digital_put:
      return european_greek_lane_of<NormalStream, K::asset_digital_put, Antithetic>(t, a, block, lane);
    default:
      return european_greek_lane_of<NormalStream, K::call, Antithetic>(t, a, block, lane);
  }
}

// a = sqrt(w) = log2_stdev ln 2, recomputed from the trade record so the record stays as small
// as the price-only kernel's.
template <typename NormalStream>
MCPRICE_HD MCPRICE_INLINE priced_greeks european_greek_lane(const european_gbm_trade& t, std::int64_t block, int lane)
{
  float const a = t.log2_stdev * 0.69314718F;
  return t.antithetic ? european_greek_lane_sampled<NormalStream, true>(t, a, block, lane)
                      : european_greek_lane_sampled<NormalStream, false>(t, a, block, lane);
}

}  // namespace mcprice
