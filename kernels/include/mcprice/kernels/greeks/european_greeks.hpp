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

// A sample's delta and gamma channels less their shifts cd and cg, from its normal z and what it
// observed (obs[1]: the mirrored path's S_T). With antithetic sampling the channels are twice
// the mean of the pair's: halving is exact, so in_double does it once a lane, and the pair's
// sum and difference give both channels in fewer operations than each path's channels
// averaged (for a Lipschitz payoff, 2 G = z (D_up - D_down) - a (D_up + D_down)). The shifts
// are folded into the last multiply-add.
template <terminal_payoff Kind, bool Antithetic>
MCPRICE_HD MCPRICE_INLINE void shifted_channels(const terminal_payoff_params& params, float a, float z,
                                                const float* obs, float cd, float cg, float& ed, float& eg)
{
  if constexpr (pathwise_greeks(Kind)) {
    float const up = spot_sensitivity<Kind>(params, obs[0]);
    if constexpr (Antithetic) {
      float const down = spot_sensitivity<Kind>(params, obs[1]);
      float const sum = up + down;
      ed = sum - cd;
      eg = fmaf(z, up - down, fmaf(-a, sum, -cg));
    } else {
      ed = up - cd;
      eg = fmaf(up, z - a, -cg);
    }
  } else {
    float const up = evaluate<Kind>(params, obs[0]);
    if constexpr (Antithetic) {
      float const down = evaluate<Kind>(params, obs[1]);
      float const d = z * (up - down);
      ed = d - cd;
      eg = fmaf(fmaf(z, z, -1.0F), up + down, fmaf(-a, d, -cg));
    } else {
      ed = fmaf(up, z, -cd);
      eg = fmaf(up, fmaf(z, z - a, -1.0F), -cg);
    }
  }
}

// What the channels' sums are in units of: 2 with antithetic sampling (shifted_channels).
template <bool Antithetic>
inline constexpr double channel_scale = Antithetic ? 2.0 : 1.0;

// A lane's Greek sums, kept in float about a shift until the lane ends. The shift is the
// channels' values on the trade's median path (z = 0, S_T its median): where a channel's mean
// is large against its spread (a low vol, a deep in-the-money call), the samples lie near that
// path, so the products summed are of deviations of the size of the spread and raw squares,
// whose rounding would swamp a small variance, are never formed (add_draw's concern); where the
// spread is wide, rounding is small against it anyway. The lane's 32 samples then add no double
// arithmetic and no conversion to double (a conversion issues at an eighth of the float rate);
// the raw double sums are formed once a lane by in_double. The price's own sums are not here:
// a price keeps its bits whether Greeks are asked for or not.
struct lane_greek_sums {
  float cp{0.0F};  // the shift of the payoff, delta and gamma channels
  float cd{0.0F};
  float cg{0.0F};
  float sd{0.0F};  // sums of the shifted delta and gamma channels
  float sg{0.0F};
  float dd{0.0F};  // sums of products of the shifted channels
  float gg{0.0F};
  float pd{0.0F};
  float pg{0.0F};
  float dg{0.0F};
  int n{0};

  // Adds one group of samples (count of Per valid): their payoffs p and their delta and gamma
  // channels already less the shifts (shifted_channels).
  template <int Per>
  MCPRICE_HD MCPRICE_INLINE void add(const float (&p)[Per], const float (&shifted_d)[Per],
                                     const float (&shifted_g)[Per], int count)
  {
    MCPRICE_UNROLL
    for (int j = 0; j < Per; ++j) {
      bool const in = j < count;
      float const ep = in ? p[j] - cp : 0.0F;
      float const ed = in ? shifted_d[j] : 0.0F;
      float const eg = in ? shifted_g[j] : 0.0F;
      sd += ed;
      sg += eg;
      dd = fmaf(ed, ed, dd);
      gg = fmaf(eg, eg, gg);
      pd = fmaf(ep, ed, pd);
      pg = fmaf(ep, eg, pg);
      dg = fmaf(ed, eg, dg);
    }
    n += count;
  }

  // The raw sums over the lane's samples, given the lane's payoff sum (the price's moments):
  // sum x y = sum (x - a)(y - b) + b sum x + a sum y - n a b, in double; with the delta and
  // gamma channels summed as `scale` times their values (channel_scale), divided by it once
  // here (a power of two: exactly).
  [[nodiscard]] MCPRICE_HD MCPRICE_INLINE greek_moments in_double(double sum_p, double scale = 1.0) const
  {
    double const N = n;
    double const a_p = cp;
    double const a_d = cd;
    double const a_g = cg;
    double const D = fma(N, a_d, static_cast<double>(sd));
    double const G = fma(N, a_g, static_cast<double>(sg));
    double const unit = 1.0 / scale;
    double const unit_sq = unit * unit;
    greek_moments m;
    m.sum_d = D * unit;
    m.sum_g = G * unit;
    m.dd = cross(dd, a_d, a_d, D, D, N) * unit_sq;
    m.gg = cross(gg, a_g, a_g, G, G, N) * unit_sq;
    m.pd = cross(pd, a_p, a_d, sum_p, D, N) * unit;
    m.pg = cross(pg, a_p, a_g, sum_p, G, N) * unit;
    m.dg = cross(dg, a_d, a_g, D, G, N) * unit_sq;
    return m;
  }

 private:
  // sum x y from the shifted sum of products s = sum (x - a)(y - b) and the raw sums X, Y.
  MCPRICE_HD MCPRICE_INLINE static double cross(float s, double a, double b, double X, double Y, double N)
  {
    return static_cast<double>(s) + b * X + a * Y - N * a * b;
  }
};

// The Greek sums of a lane, shifted by the channels of the median path (z = 0).
template <terminal_payoff Kind, bool Antithetic>
MCPRICE_HD MCPRICE_INLINE lane_greek_sums median_shifted_sums(const european_gbm_trade& t, float a)
{
  float const median[max_observations_per_sample] = {t.median, t.median};
  lane_greek_sums sums;
  sums.cp = sample_payoff<Kind, Antithetic>(t, median);
  shifted_channels<Kind, Antithetic>(t.payoff, a, 0.0F, median, 0.0F, 0.0F, sums.cd, sums.cg);
  return sums;
}

// The fused lane with Greeks: the same normals, spots and payoffs as european_lane_of (so the
// same price moments), plus each sample's delta and gamma channels.
template <typename NormalStream, terminal_payoff Kind, bool Antithetic>
MCPRICE_HD MCPRICE_INLINE priced_greeks european_greek_lane_of(const european_gbm_trade& t, float a, std::int64_t block,
                                                               int lane)
{
  constexpr int per = european_samples_per_group;
  priced_greeks m{};
  lane_greek_sums sums = median_shifted_sums<Kind, Antithetic>(t, a);
  for_lane_groups(t.samples, block, lane, [&](std::int64_t group, int count) {
    NormalStream rng(t.key, static_cast<std::uint64_t>(group));
    auto const z = rng.next4();
    float const zs[4] = {z.x, z.y, z.z, z.w};
    float x[per];
    float ed[per];
    float eg[per];
    MCPRICE_UNROLL
    for (int j = 0; j < per; ++j) {
      float obs[max_observations_per_sample];
      observe<Antithetic>(t, zs[j], obs);
      // add_draw needs the payoffs past the count zeroed; sums.add masks the channels itself.
      x[j] = j < count ? sample_payoff<Kind, Antithetic>(t, obs) : 0.0F;
      shifted_channels<Kind, Antithetic>(t.payoff, a, zs[j], obs, sums.cd, sums.cg, ed[j], eg[j]);
    }
    add_draw<per>(m.price, x, count);
    sums.add<per>(x, ed, eg, count);
  });
  m.greeks = sums.in_double(m.price.sum, channel_scale<Antithetic>);
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
