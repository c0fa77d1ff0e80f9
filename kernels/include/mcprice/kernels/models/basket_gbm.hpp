#pragma once
// European payoffs on several correlated GBM assets: baskets, best-of, worst-of and spreads.
// Each asset steps exactly to maturity (its own term structures in drift and total variance);
// the normals are correlated by a factor A of the correlation matrix (A A^T = C, from an
// eigen-decomposition, so positive semi-definite matrices work too).
#include "mcprice/kernels/rng/box_muller.hpp"
#include "mcprice/kernels/layout/canonical_layout.hpp"
#include "mcprice/kernels/moments.hpp"
#include "mcprice/kernels/detail/real_math.hpp"
#include "mcprice/kernels/detail/rounded_product.hpp"
#include "mcprice/kernels/layout/sample_lanes.hpp"

#include <cmath>
#include <cstdint>
#include <type_traits>

namespace mcprice {

inline constexpr int max_basket_assets = 16;

enum class basket_payoff : std::uint8_t { basket, best_of, worst_of, spread };

// Real: the path precision (float, or double under --precision double; path_gbm.hpp).
template <typename Real>
struct basic_basket_gbm_trade {
  std::uint64_t key;
  std::int64_t samples;
  std::int64_t first_block;
  std::int32_t assets;
  std::int32_t first_factor;  // into the factor table: assets x assets, row-major
  std::int32_t first_asset;   // into the asset table
  Real strike;
  basket_payoff payoff;
  std::uint8_t call;
  std::uint8_t antithetic;
  std::uint8_t greeks;  // with Greeks (basket_greeks.hpp): the factor table also holds the
                        // correlation-bumped factors after the trade's own
  Real maturity;        // T (Greeks: the vol, time and rate scenarios)
  Real rate;            // r(T), the zero rate to expiry (Greeks: theta's discount)
};
using basket_gbm_trade = basic_basket_gbm_trade<float>;
using basket_gbm_trade_f64 = basic_basket_gbm_trade<double>;

template <typename Real>
struct basic_basket_asset {
  Real spot;
  Real drift;   // ln(F_T / S_0) - w/2
  Real stdev;   // sqrt(w)
  Real weight;  // basket weight, or the scale of S_i for best/worst-of
};
using basket_asset = basic_basket_asset<float>;
using basket_asset_f64 = basic_basket_asset<double>;

// Asset i's terminal spot on the path of `normals` (one per asset, correlated by the factor),
// times `sign` (-1: the antithetic path).
template <typename Real>
MCPRICE_HD MCPRICE_INLINE Real basket_terminal_spot(const basic_basket_gbm_trade<Real>& t,
                                                    const basic_basket_asset<Real>* assets, const Real* factor,
                                                    const Real* normals, Real sign, int i)
{
  Real y = 0;
  for (int j = 0; j < t.assets; ++j) y = math::fma(factor[i * t.assets + j], normals[j], y);
  const basic_basket_asset<Real>& a = assets[i];
  return a.spot * math::exp(math::fma(a.stdev, sign * y, a.drift));
}

template <typename Real>
MCPRICE_HD MCPRICE_INLINE int asset_count(const basic_basket_gbm_trade<Real>& t)
{
  return t.assets;
}

// What a call or put on the aggregate (the basket, the spread, or the best or worst spot) pays.
template <typename Trade, typename Real>
MCPRICE_HD MCPRICE_INLINE Real payoff_of_aggregate(const Trade& t, Real agg)
{
  return t.call ? math::fmax(agg - t.strike, Real(0)) : math::fmax(t.strike - agg, Real(0));
}

// The payoff of the spots spot(i): the weighted basket, the spread, or the best or worst of
// the scaled spots, against the strike. Trade: any record with assets, payoff, call and strike
// (the early-exercise record too); Asset: any with a weight.
// The payoff of the weighted spots weighted(i) (each rounded before it is added: a multiply-add
// contracted in one kernel and not in another would make the two routes differ in the last bit).
template <typename Trade, typename WeightedAt>
MCPRICE_HD MCPRICE_INLINE auto basket_payoff_weighted(const Trade& t, WeightedAt&& weighted)
{
  using Real = std::decay_t<decltype(t.strike)>;
  Real agg = 0;
  int const n = asset_count(t);  // a compile-time constant for a sized trade (early_exercise.hpp)
  for (int i = 0; i < n; ++i) {
    Real const v = weighted(i);
    if (t.payoff == basket_payoff::basket) agg += v;
    else if (t.payoff == basket_payoff::spread) agg += i == 0 ? v : -v;
    else if (i == 0) agg = v;
    else agg = t.payoff == basket_payoff::best_of ? math::fmax(agg, v) : math::fmin(agg, v);
  }
  return payoff_of_aggregate(t, agg);
}

template <typename Trade, typename Asset, typename SpotAt>
MCPRICE_HD MCPRICE_INLINE auto basket_payoff(const Trade& t, const Asset* assets, SpotAt&& spot)
{
  return basket_payoff_weighted(t, [&](int i) { return rounded_product(assets[i].weight, spot(i)); });
}

// One path: correlated terminal spots from `normals` (one per asset), times `sign`.
template <typename Real>
MCPRICE_HD MCPRICE_INLINE Real basket_path(const basic_basket_gbm_trade<Real>& t,
                                           const basic_basket_asset<Real>* assets, const Real* factor,
                                           const Real* normals, Real sign)
{
  return basket_payoff(t, assets, [&](int i) { return basket_terminal_spot(t, assets, factor, normals, sign, i); });
}

// The normals of one sample: assets of them, from the first draws of its subsequence.
template <typename Real, typename NormalStream>
MCPRICE_HD MCPRICE_INLINE void basket_normals(const basic_basket_gbm_trade<Real>& t, NormalStream& rng, Real* z)
{
  for (int i = 0; i < t.assets; i += 4) {
    auto const q = mcprice::rng::normals4<Real>(rng);
    Real const four[4] = {q.x, q.y, q.z, q.w};
    for (int j = 0; j < 4 && i + j < t.assets; ++j) z[i + j] = four[j];
  }
}

// One sample (one path, or an antithetic pair), from its own subsequence.
template <typename NormalStream, typename Real>
MCPRICE_HD MCPRICE_INLINE Real basket_sample(const basic_basket_gbm_trade<Real>& t,
                                             const basic_basket_asset<Real>* assets, const Real* factor,
                                             std::uint64_t subsequence)
{
  NormalStream rng(t.key, subsequence);
  Real z[max_basket_assets];
  basket_normals(t, rng, z);
  Real const up = basket_path(t, assets, factor, z, Real(1));
  return t.antithetic ? Real(0.5) * (up + basket_path(t, assets, factor, z, Real(-1))) : up;
}

// A sample takes a subsequence of its own (as path trades do).
inline constexpr int basket_normals_per_sample = own_subsequence_normals;

template <typename NormalStream, typename Real>
MCPRICE_HD MCPRICE_INLINE moments basket_lane(const basic_basket_gbm_trade<Real>& t,
                                              const basic_basket_asset<Real>* assets, const Real* factors,
                                              std::int64_t block, int lane)
{
  return own_subsequence_lane(t.samples, block, lane, [&](std::uint64_t subsequence) {
    return basket_sample<NormalStream>(t, assets + t.first_asset, factors + t.first_factor, subsequence);
  });
}

}  // namespace mcprice
