#pragma once
// European payoffs on several correlated GBM assets: baskets, best-of, worst-of and spreads.
// Each asset steps exactly to maturity (its own term structures in drift and total variance);
// the normals are correlated by a factor A of the correlation matrix (A A^T = C, from an
// eigen-decomposition, so positive semi-definite matrices work too).
#include "mcprice/kernels/canonical_layout.hpp"
#include "mcprice/kernels/moments.hpp"
#include "mcprice/kernels/rounded_product.hpp"
#include "mcprice/kernels/sample_lanes.hpp"

#include <cmath>
#include <cstdint>

namespace mcprice {

inline constexpr int max_basket_assets = 16;

enum class basket_payoff : std::uint8_t { basket, best_of, worst_of, spread };

struct basket_gbm_trade {
  std::uint64_t key;
  std::int64_t samples;
  std::int64_t first_block;
  std::int32_t assets;
  std::int32_t first_factor;  // into the factor table: assets x assets, row-major
  std::int32_t first_asset;   // into the asset table
  float strike;
  basket_payoff payoff;
  std::uint8_t call;
  std::uint8_t antithetic;
  std::uint8_t greeks;  // with Greeks (basket_greeks.hpp): the factor table also holds the
                        // correlation-bumped factors after the trade's own
  float maturity;       // T (Greeks: the vol, time and rate scenarios)
  float rate;           // r(T), the zero rate to expiry (Greeks: theta's discount)
};

struct basket_asset {
  float spot;
  float drift;   // ln(F_T / S_0) - w/2
  float stdev;   // sqrt(w)
  float weight;  // basket weight, or the scale of S_i for best/worst-of
};

// Asset i's terminal spot on the path of `normals` (one per asset, correlated by the factor),
// times `sign` (-1: the antithetic path).
MCPRICE_HD MCPRICE_INLINE float basket_terminal_spot(const basket_gbm_trade& t, const basket_asset* assets,
                                                     const float* factor, const float* normals, float sign, int i)
{
  float y = 0.0F;
  for (int j = 0; j < t.assets; ++j) y = fmaf(factor[i * t.assets + j], normals[j], y);
  const basket_asset& a = assets[i];
  return a.spot * expf(fmaf(a.stdev, sign * y, a.drift));
}

MCPRICE_HD MCPRICE_INLINE int asset_count(const basket_gbm_trade& t) { return t.assets; }

// The payoff of the spots spot(i): the weighted basket, the spread, or the best or worst of
// the scaled spots, against the strike. Trade: any record with assets, payoff, call and strike
// (the early-exercise record too); Asset: any with a weight.
template <typename Trade, typename Asset, typename SpotAt>
MCPRICE_HD MCPRICE_INLINE float basket_payoff(const Trade& t, const Asset* assets, SpotAt&& spot)
{
  float agg = 0.0F;
  int const n = asset_count(t);  // a compile-time constant for a sized trade (early_exercise.hpp)
  for (int i = 0; i < n; ++i) {
    // Rounded before it is added: a multiply-add contracted in one kernel and not in another
    // would make the two routes differ in the last bit.
    float const v = rounded_product(assets[i].weight, spot(i));
    if (t.payoff == basket_payoff::basket) agg += v;
    else if (t.payoff == basket_payoff::spread) agg += i == 0 ? v : -v;
    else if (i == 0) agg = v;
    else agg = t.payoff == basket_payoff::best_of ? fmaxf(agg, v) : fminf(agg, v);
  }
  return t.call ? fmaxf(agg - t.strike, 0.0F) : fmaxf(t.strike - agg, 0.0F);
}

// One path: correlated terminal spots from `normals` (one per asset), times `sign`.
MCPRICE_HD MCPRICE_INLINE float basket_path(const basket_gbm_trade& t, const basket_asset* assets, const float* factor,
                                            const float* normals, float sign)
{
  return basket_payoff(t, assets, [&](int i) { return basket_terminal_spot(t, assets, factor, normals, sign, i); });
}

// The normals of one sample: assets of them, from the first draws of its subsequence.
template <typename NormalStream>
MCPRICE_HD MCPRICE_INLINE void basket_normals(const basket_gbm_trade& t, NormalStream& rng, float* z)
{
  for (int i = 0; i < t.assets; i += 4) {
    auto const q = rng.next4();
    float const four[4] = {q.x, q.y, q.z, q.w};
    for (int j = 0; j < 4 && i + j < t.assets; ++j) z[i + j] = four[j];
  }
}

// One sample (one path, or an antithetic pair), from its own subsequence.
template <typename NormalStream>
MCPRICE_HD MCPRICE_INLINE float basket_sample(const basket_gbm_trade& t, const basket_asset* assets, const float* factor,
                                              std::uint64_t subsequence)
{
  NormalStream rng(t.key, subsequence);
  float z[max_basket_assets];
  basket_normals(t, rng, z);
  float const up = basket_path(t, assets, factor, z, 1.0F);
  return t.antithetic ? 0.5F * (up + basket_path(t, assets, factor, z, -1.0F)) : up;
}

// A sample takes a subsequence of its own (as path trades do).
inline constexpr int basket_normals_per_sample = own_subsequence_normals;

template <typename NormalStream>
MCPRICE_HD MCPRICE_INLINE moments basket_lane(const basket_gbm_trade& t, const basket_asset* assets, const float* factors,
                                              std::int64_t block, int lane)
{
  return own_subsequence_lane(t.samples, block, lane, [&](std::uint64_t subsequence) {
    return basket_sample<NormalStream>(t, assets + t.first_asset, factors + t.first_factor, subsequence);
  });
}

}  // namespace mcprice
