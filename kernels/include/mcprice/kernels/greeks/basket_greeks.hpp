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

// The scenarios' bumps in either path precision (the float names are the float kernels').
template <typename Real>
struct basket_bumps {
  static constexpr Real spot = Real(0.01);
  static constexpr Real vol = Real(0.01);
  static constexpr Real rate = Real(1e-3);
  static constexpr Real correlation = Real(0.01);
};
inline constexpr float basket_spot_bump = basket_bumps<float>::spot;
inline constexpr float basket_vol_bump = basket_bumps<float>::vol;
inline constexpr float basket_rate_bump = basket_bumps<float>::rate;
inline constexpr float basket_correlation_bump = basket_bumps<float>::correlation;

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
template <typename Real>
MCPRICE_HD MCPRICE_INLINE Real correlated_normal(int n, const Real* factor, const Real* z, int i)
{
  Real y(0);
  for (int j = 0; j < n; ++j) y = math::fma(factor[i * n + j], z[j], y);
  return y;
}

// S_i = S0_i exp(drift + stdev y), with drift and stdev those of the scenario.
template <typename Real>
MCPRICE_HD MCPRICE_INLINE Real spot_of(const basic_basket_asset<Real>& a, Real drift, Real stdev, Real y)
{
  return a.spot * math::exp(math::fma(stdev, y, drift));
}

// Adds one path's scenario differences (sign -1: the antithetic path) to v[channels], each
// times `share` (1/2 with antithetic pairs).
template <typename Real>
MCPRICE_HD MCPRICE_INLINE void add_basket_path_greeks(const basic_basket_gbm_trade<Real>& t,
                                                      const basic_basket_asset<Real>* assets, const Real* factor,
                                                      const Real* z, Real sign, Real share, Real* v)
{
  using bumps = basket_bumps<Real>;
  Real const one(1);
  Real const two(2);
  Real const half(0.5);
  int const n = t.assets;
  basket_channels const ch{n};
  Real y[max_basket_greek_assets];
  Real s[max_basket_greek_assets];
  for (int i = 0; i < n; ++i) {
    y[i] = sign * correlated_normal(n, factor, z, i);
    s[i] = spot_of(assets[i], assets[i].drift, assets[i].stdev, y[i]);
  }
  auto payoff_with = [&](auto&& spot) { return basket_payoff(t, assets, spot); };
  Real const base = payoff_with([&](int k) { return s[k]; });
  Real const h = bumps::spot;
  // One asset's spot moved (by scale, or to a new value).
  auto moved = [&](int i, Real value) { return payoff_with([&](int k) { return k == i ? value : s[k]; }); };
  for (int i = 0; i < n; ++i) {
    Real const up = moved(i, s[i] * (one + h));
    Real const down = moved(i, s[i] * (one - h));
    Real const dS = h * assets[i].spot;
    v[ch.delta(i)] += share * (up - down) / (two * dS);
    v[ch.gamma(i)] += share * (up - two * base + down) / (dS * dS);
    // Vol +-0.01: stdev = sigma sqrt(T) moves by +-0.01 sqrt(T), drift by -(stdev'^2 - stdev^2)/2.
    Real const sd = assets[i].stdev;
    Real const d_sd = bumps::vol * math::sqrt(t.maturity);
    Real const sd_up = sd + d_sd;
    Real const sd_down = sd - d_sd;
    Real const vol_up = moved(i, spot_of(assets[i], assets[i].drift - half * (sd_up * sd_up - sd * sd), sd_up, y[i]));
    Real const vol_down =
        moved(i, spot_of(assets[i], assets[i].drift - half * (sd_down * sd_down - sd * sd), sd_down, y[i]));
    v[ch.vega(i)] += share * (vol_up - vol_down) / (two * bumps::vol);
  }
  for (int i = 0; i < n; ++i) {
    for (int j = i + 1; j < n; ++j) {
      auto corner = [&](Real ci, Real cj) {
        return payoff_with([&](int k) { return k == i ? s[k] * ci : k == j ? s[k] * cj : s[k]; });
      };
      Real const pp = corner(one + h, one + h);
      Real const pm = corner(one + h, one - h);
      Real const mp = corner(one - h, one + h);
      Real const mm = corner(one - h, one - h);
      v[ch.cross(i, j)] += share * (pp - pm - mp + mm) / (Real(4) * h * h * assets[i].spot * assets[j].spot);
    }
  }
  // Correlations +-0.01: the bumped factors follow the trade's own.
  if (n > 1) {
    Real corr[2];
    for (int side = 0; side < 2; ++side) {
      const Real* f = factor + (side + 1) * n * n;
      corr[side] = payoff_with([&](int k) {
        return spot_of(assets[k], assets[k].drift, assets[k].stdev, sign * correlated_normal(n, f, z, k));
      });
    }
    v[ch.correlation_vega()] += share * (corr[0] - corr[1]) / (two * bumps::correlation);
  }
  // Rate +-dr: forwards scale by e^{+-dr T}, the discount by e^{-+dr T}.
  Real const grow = math::exp(bumps::rate * t.maturity);
  Real const rate_up = payoff_with([&](int k) { return s[k] * grow; }) / grow;
  Real const rate_down = payoff_with([&](int k) { return s[k] / grow; }) * grow;
  v[ch.rho()] += share * (rate_up - rate_down) / (two * bumps::rate);
  // Time +-eps: maturity T -+ eps with each asset's drift / T and vol held; discount e^{+-r eps}.
  Real const eps = math::fmin(one / Real(365), half * t.maturity);
  Real rolled[2];
  for (int side = 0; side < 2; ++side) {
    Real const ratio = (t.maturity + (side == 0 ? -eps : eps)) / t.maturity;
    Real const root = math::sqrt(ratio);
    rolled[side] =
        payoff_with([&](int k) { return spot_of(assets[k], assets[k].drift * ratio, assets[k].stdev * root, y[k]); });
  }
  Real const carry = math::exp(t.rate * eps);
  v[ch.theta()] += share * (rolled[0] * carry - rolled[1] / carry) / (two * eps);
}

// One sample's price (with basket_sample's bits) and its Greek channels.
template <typename NormalStream, typename Real>
MCPRICE_HD MCPRICE_INLINE Real basket_sample_with_greeks(const basic_basket_gbm_trade<Real>& t,
                                                         const basic_basket_asset<Real>* assets, const Real* factor,
                                                         std::uint64_t subsequence, Real* v)
{
  NormalStream rng(t.key, subsequence);
  Real z[max_basket_assets];
  basket_normals(t, rng, z);
  Real const up = basket_path(t, assets, factor, z, Real(1));
  Real const price = t.antithetic ? Real(0.5) * (up + basket_path(t, assets, factor, z, Real(-1))) : up;
  if (!t.greeks) return price;
  Real const share = t.antithetic ? Real(0.5) : Real(1);
  add_basket_path_greeks(t, assets, factor, z, Real(1), share, v);
  if (t.antithetic) add_basket_path_greeks(t, assets, factor, z, Real(-1), share, v);
  return price;
}

template <typename NormalStream, typename Real>
MCPRICE_HD MCPRICE_INLINE priced_basket_greeks basket_greek_lane(const basic_basket_gbm_trade<Real>& t,
                                                                 const basic_basket_asset<Real>* assets,
                                                                 const Real* factors, std::int64_t block, int lane)
{
  constexpr int d = own_subsequence_normals;
  priced_basket_greeks m{};
  int const channels = basket_channels{t.assets}.count();
  for (int g = 0; g < layout::groups_per_lane(d); ++g) {
    std::int64_t const group = layout::group_index(block, g, lane, d);
    if (group >= t.samples) break;
    Real v[basket_greek_channels] = {};
    Real const price = basket_sample_with_greeks<NormalStream>(t, assets + t.first_asset, factors + t.first_factor,
                                                               static_cast<std::uint64_t>(group), v);
    m.price.add_group(price, Real(0), 1);
    if (t.greeks) {
      for (int c = 0; c < channels; ++c) m.greeks.m[c].add_group(v[c], Real(0), 1);
    }
  }
  return m;
}

}  // namespace mcprice
