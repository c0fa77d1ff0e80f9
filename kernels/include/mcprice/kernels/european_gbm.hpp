#pragma once
// European payoffs under Black-Scholes dynamics with term structures. Only S_T matters, and
// log S_T is exactly normal: ln S_T = ln S_0 + ln(F_T/S_0) - w/2 + sqrt(w) Z with w the total
// variance to T. One exact step is therefore the whole path, whatever the grid.
#include "mcprice/kernels/canonical_layout.hpp"
#include "mcprice/kernels/moments.hpp"
#include "mcprice/kernels/payoff.hpp"

#include <cmath>
#include <cstdint>

namespace mcprice {

// Trivially copyable: lives in the device trade table and is read by value in the kernel.
struct european_gbm_trade {
  std::uint64_t key;          // Philox key of the trade
  std::int64_t samples;       // paths, or antithetic pairs of paths
  std::int64_t first_block;   // index of the trade's first canonical block in the run
  float spot;
  float drift;                // ln(F_T / S_0) - w/2
  float stdev;                // sqrt(w)
  terminal_payoff_params payoff;
  std::uint8_t antithetic;    // 1: a sample is the mean of the paths of Z and -Z
};

inline constexpr int european_normals_per_sample = 1;

MCPRICE_HD MCPRICE_INLINE float terminal_spot(const european_gbm_trade& t, float z)
{
  return t.spot * expf(fmaf(t.stdev, z, t.drift));
}

template <terminal_payoff Kind, bool Antithetic>
MCPRICE_HD MCPRICE_INLINE float european_sample(const european_gbm_trade& t, float z)
{
  float const up = evaluate<Kind>(t.payoff, terminal_spot(t, z));
  if constexpr (!Antithetic) return up;
  else return 0.5F * (up + evaluate<Kind>(t.payoff, terminal_spot(t, -z)));
}

// The samples of one draw are combined in float, like the rest of their arithmetic: their sum
// and their squared deviations from their own mean (never raw squares, whose rounding would
// swamp a small variance). The running sums over draws are double.
template <int Per>
MCPRICE_HD MCPRICE_INLINE void add_draw(moments& m, const float (&x)[Per], int count)
{
  float sum = 0.0F;
  MCPRICE_UNROLL
  for (int j = 0; j < Per; ++j) sum += x[j];
  // A full group (all but perhaps a trade's last) divides by a power of two: exact and cheap.
  float const mean = count == Per ? sum * (1.0F / Per) : sum / static_cast<float>(count);
  float dev_sq = 0.0F;
  MCPRICE_UNROLL
  for (int j = 0; j < Per; ++j) {
    float const dev = j < count ? x[j] - mean : 0.0F;
    dev_sq = fmaf(dev, dev, dev_sq);
  }
  m.add_group(sum, dev_sq, count);
}

// One lane of canonical block `block` (counted within the trade): groups_per_lane lane
// groups, each one curand_normal4 shared by samples_per_group samples, summed in order.
template <typename NormalStream, terminal_payoff Kind, bool Antithetic>
MCPRICE_HD MCPRICE_INLINE moments european_lane_of(const european_gbm_trade& t, std::int64_t block, int lane)
{
  constexpr int d = european_normals_per_sample;
  constexpr int per = layout::samples_per_group(d);
  moments m{};
  for (int g = 0; g < layout::groups_per_lane(d); ++g) {
    std::int64_t const group = layout::group_index(block, g, lane, d);
    std::int64_t const first = group * per;
    if (first >= t.samples) break;
    NormalStream rng(t.key, static_cast<std::uint64_t>(group));
    auto const z = rng.next4();
    float const zs[4] = {z.x, z.y, z.z, z.w};
    int const count = first + per <= t.samples ? per : static_cast<int>(t.samples - first);
    float x[per];
    MCPRICE_UNROLL
    for (int j = 0; j < per; ++j) x[j] = j < count ? european_sample<Kind, Antithetic>(t, zs[j]) : 0.0F;
    add_draw<per>(m, x, count);
  }
  return m;
}

template <typename NormalStream, bool Antithetic>
MCPRICE_HD MCPRICE_INLINE moments european_lane_sampled(const european_gbm_trade& t, std::int64_t block, int lane)
{
  using K = terminal_payoff;
  switch (t.payoff.kind) {
    case K::put: return european_lane_of<NormalStream, K::put, Antithetic>(t, block, lane);
    case K::cash_digital_call: return european_lane_of<NormalStream, K::cash_digital_call, Antithetic>(t, block, lane);
    case K::cash_digital_put: return european_lane_of<NormalStream, K::cash_digital_put, Antithetic>(t, block, lane);
    case K::asset_digital_call: return european_lane_of<NormalStream, K::asset_digital_call, Antithetic>(t, block, lane);
    case K::asset_digital_put: return european_lane_of<NormalStream, K::asset_digital_put, Antithetic>(t, block, lane);
    default: return european_lane_of<NormalStream, K::call, Antithetic>(t, block, lane);
  }
}

// The lane with the trade's payoff kind and sampling as compile-time constants: the branch is
// taken once per lane, uniformly across a canonical block (all its lanes price one trade), and
// the per-path code is straight-line.
template <typename NormalStream>
MCPRICE_HD MCPRICE_INLINE moments european_lane(const european_gbm_trade& t, std::int64_t block, int lane)
{
  return t.antithetic ? european_lane_sampled<NormalStream, true>(t, block, lane)
                      : european_lane_sampled<NormalStream, false>(t, block, lane);
}

}  // namespace mcprice
