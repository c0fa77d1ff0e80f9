#pragma once
// Greeks of multi-asset Europeans (baskets, best-of, worst-of, spreads) in the price's pass:
// scenario lanes on the terminal spots. Each sample's correlated normals give the base terminal
// spots once; every scenario is a change of those spots (a scale, or one exponential per moved
// asset), and the Greeks are central differences of the scenarios' payoffs (docs/greeks.md):
//   per asset i: delta_i and gamma_i (S0_i +-1%), vega_i (its Black vol +-0.01);
//   per pair i < j: the cross gamma d2P/dS_i dS_j (four corners, +-1% each);
//   correlation vega (every pairwise correlation +-0.01, the factor of each bumped matrix
//   computed on the host), theta (maturity -+eps, zero rates, yields and vols held) and rho
//   (the discount curve +-1e-3).
#include "mcprice/kernels/models/basket_gbm.hpp"

namespace mcprice {

// Greeks are computed for trades of at most this many assets (the channel count grows with the
// pairs of assets); larger trades are priced without them.
inline constexpr int max_basket_greek_assets = 8;
inline constexpr int basket_greek_channels =
    3 * max_basket_greek_assets + max_basket_greek_assets * (max_basket_greek_assets - 1) / 2 + 3;

inline constexpr float basket_spot_bump = 0.01F;
inline constexpr float basket_vol_bump = 0.01F;
inline constexpr float basket_rate_bump = 1e-3F;
inline constexpr float basket_correlation_bump = 0.01F;

// Channel layout for n assets: delta_i, gamma_i, vega_i (n each), the n(n-1)/2 cross gammas in
// row-major pair order, then correlation vega, theta, rho.
struct basket_channels {
  int n;
  [[nodiscard]] MCPRICE_HD MCPRICE_INLINE int delta(int i) const { return i; }
  [[nodiscard]] MCPRICE_HD MCPRICE_INLINE int gamma(int i) const { return n + i; }
  [[nodiscard]] MCPRICE_HD MCPRICE_INLINE int vega(int i) const { return 2 * n + i; }
  [[nodiscard]] MCPRICE_HD MCPRICE_INLINE int cross(int i, int j) const  // i < j
  {
    return 3 * n + i * n - i * (i + 1) / 2 + (j - i - 1);
  }
  [[nodiscard]] MCPRICE_HD MCPRICE_INLINE int correlation_vega() const { return 3 * n + n * (n - 1) / 2; }
  [[nodiscard]] MCPRICE_HD MCPRICE_INLINE int theta() const { return correlation_vega() + 1; }
  [[nodiscard]] MCPRICE_HD MCPRICE_INLINE int rho() const { return correlation_vega() + 2; }
  [[nodiscard]] MCPRICE_HD MCPRICE_INLINE int count() const { return correlation_vega() + 3; }
};

struct basket_greek_moments {
  moments m[basket_greek_channels];
};

MCPRICE_HD MCPRICE_INLINE basket_greek_moments operator+(const basket_greek_moments& a, const basket_greek_moments& b)
{
  basket_greek_moments out;
  for (int c = 0; c < basket_greek_channels; ++c) out.m[c] = a.m[c] + b.m[c];
  return out;
}

struct priced_basket_greeks {
  moments price;
  basket_greek_moments greeks;
};

MCPRICE_HD MCPRICE_INLINE priced_basket_greeks operator+(const priced_basket_greeks& a, const priced_basket_greeks& b)
{
  return {a.price + b.price, a.greeks + b.greeks};
}

// The correlated normal of asset i: row i of `factor` times the sample's normals.
MCPRICE_HD MCPRICE_INLINE float correlated_normal(int n, const float* factor, const float* z, int i)
{
  float y = 0.0F;
  for (int j = 0; j < n; ++j) y = fmaf(factor[i * n + j], z[j], y);
  return y;
}

// S_i = S0_i exp(drift + stdev y), with drift and stdev those of the scenario.
MCPRICE_HD MCPRICE_INLINE float spot_of(const basket_asset& a, float drift, float stdev, float y)
{
  return a.spot * expf(fmaf(stdev, y, drift));
}

// Adds one path's scenario differences (sign -1: the antithetic path) to v[channels], each
// times `share` (1/2 with antithetic pairs).
MCPRICE_HD MCPRICE_INLINE void add_basket_path_greeks(const basket_gbm_trade& t, const basket_asset* assets,
                                                      const float* factor, const float* z, float sign, float share,
                                                      float* v)
{
  int const n = t.assets;
  basket_channels const ch{n};
  float y[max_basket_greek_assets];
  float s[max_basket_greek_assets];
  for (int i = 0; i < n; ++i) {
    y[i] = sign * correlated_normal(n, factor, z, i);
    s[i] = spot_of(assets[i], assets[i].drift, assets[i].stdev, y[i]);
  }
  auto payoff_with = [&](auto&& spot) { return basket_payoff(t, assets, spot); };
  float const base = payoff_with([&](int k) { return s[k]; });
  float const h = basket_spot_bump;
  // One asset's spot moved (by scale, or to a new value).
  auto moved = [&](int i, float value) { return payoff_with([&](int k) { return k == i ? value : s[k]; }); };
  for (int i = 0; i < n; ++i) {
    float const up = moved(i, s[i] * (1.0F + h));
    float const down = moved(i, s[i] * (1.0F - h));
    float const dS = h * assets[i].spot;
    v[ch.delta(i)] += share * (up - down) / (2.0F * dS);
    v[ch.gamma(i)] += share * (up - 2.0F * base + down) / (dS * dS);
    // Vol +-0.01: stdev = sigma sqrt(T) moves by +-0.01 sqrt(T), drift by -(stdev'^2 - stdev^2)/2.
    float const sd = assets[i].stdev;
    float const d_sd = basket_vol_bump * sqrtf(t.maturity);
    float const sd_up = sd + d_sd;
    float const sd_down = sd - d_sd;
    float const vol_up = moved(i, spot_of(assets[i], assets[i].drift - 0.5F * (sd_up * sd_up - sd * sd), sd_up, y[i]));
    float const vol_down =
        moved(i, spot_of(assets[i], assets[i].drift - 0.5F * (sd_down * sd_down - sd * sd), sd_down, y[i]));
    v[ch.vega(i)] += share * (vol_up - vol_down) / (2.0F * basket_vol_bump);
  }
  for (int i = 0; i < n; ++i) {
    for (int j = i + 1; j < n; ++j) {
      auto corner = [&](float ci, float cj) {
        return payoff_with([&](int k) { return k == i ? s[k] * ci : k == j ? s[k] * cj : s[k]; });
      };
      float const pp = corner(1.0F + h, 1.0F + h);
      float const pm = corner(1.0F + h, 1.0F - h);
      float const mp = corner(1.0F - h, 1.0F + h);
      float const mm = corner(1.0F - h, 1.0F - h);
      v[ch.cross(i, j)] += share * (pp - pm - mp + mm) / (4.0F * h * h * assets[i].spot * assets[j].spot);
    }
  }
  // Correlations +-0.01: the bumped factors follow the trade's own.
  if (n > 1) {
    float corr[2];
    for (int side = 0; side < 2; ++side) {
      const float* f = factor + (side + 1) * n * n;
      corr[side] = payoff_with([&](int k) {
        return spot_of(assets[k], assets[k].drift, assets[k].stdev, sign * correlated_normal(n, f, z, k));
      });
    }
    v[ch.correlation_vega()] += share * (corr[0] - corr[1]) / (2.0F * basket_correlation_bump);
  }
  // Rate +-dr: forwards scale by e^{+-dr T}, the discount by e^{-+dr T}.
  float const grow = expf(basket_rate_bump * t.maturity);
  float const rate_up = payoff_with([&](int k) { return s[k] * grow; }) / grow;
  float const rate_down = payoff_with([&](int k) { return s[k] / grow; }) * grow;
  v[ch.rho()] += share * (rate_up - rate_down) / (2.0F * basket_rate_bump);
  // Time +-eps: maturity T -+ eps with each asset's drift / T and vol held; discount e^{+-r eps}.
  float const eps = fminf(1.0F / 365.0F, 0.5F * t.maturity);
  float rolled[2];
  for (int side = 0; side < 2; ++side) {
    float const ratio = (t.maturity + (side == 0 ? -eps : eps)) / t.maturity;
    float const root = sqrtf(ratio);
    rolled[side] =
        payoff_with([&](int k) { return spot_of(assets[k], assets[k].drift * ratio, assets[k].stdev * root, y[k]); });
  }
  float const carry = expf(t.rate * eps);
  v[ch.theta()] += share * (rolled[0] * carry - rolled[1] / carry) / (2.0F * eps);
}

// One sample's price (with basket_sample's bits) and its Greek channels.
template <typename NormalStream>
MCPRICE_HD MCPRICE_INLINE float basket_sample_with_greeks(const basket_gbm_trade& t, const basket_asset* assets,
                                                          const float* factor, std::uint64_t subsequence, float* v)
{
  NormalStream rng(t.key, subsequence);
  float z[max_basket_assets];
  basket_normals(t, rng, z);
  float const up = basket_path(t, assets, factor, z, 1.0F);
  float const price = t.antithetic ? 0.5F * (up + basket_path(t, assets, factor, z, -1.0F)) : up;
  if (!t.greeks) return price;
  float const share = t.antithetic ? 0.5F : 1.0F;
  add_basket_path_greeks(t, assets, factor, z, 1.0F, share, v);
  if (t.antithetic) add_basket_path_greeks(t, assets, factor, z, -1.0F, share, v);
  return price;
}

template <typename NormalStream>
MCPRICE_HD MCPRICE_INLINE priced_basket_greeks basket_greek_lane(const basket_gbm_trade& t, const basket_asset* assets,
                                                                 const float* factors, std::int64_t block, int lane)
{
  constexpr int d = own_subsequence_normals;
  priced_basket_greeks m{};
  int const channels = basket_channels{t.assets}.count();
  for (int g = 0; g < layout::groups_per_lane(d); ++g) {
    std::int64_t const group = layout::group_index(block, g, lane, d);
    if (group >= t.samples) break;
    float v[basket_greek_channels] = {};
    float const price = basket_sample_with_greeks<NormalStream>(t, assets + t.first_asset, factors + t.first_factor,
                                                                static_cast<std::uint64_t>(group), v);
    m.price.add_group(price, 0.0F, 1);
    if (t.greeks) {
      for (int c = 0; c < channels; ++c) m.greeks.m[c].add_group(v[c], 0.0F, 1);
    }
  }
  return m;
}

}  // namespace mcprice
