#pragma once
// European payoffs under Black-Scholes dynamics with term structures. Only S_T matters, and
// log S_T is exactly normal: ln S_T = ln S_0 + ln(F_T/S_0) - w/2 + sqrt(w) Z with w the total
// variance to T. One exact step is therefore the whole path, whatever the grid.
#include "mcprice/kernels/layout/canonical_layout.hpp"
#include "mcprice/kernels/moments.hpp"
#include "mcprice/kernels/products/payoff.hpp"
#include "mcprice/kernels/rng/sobol_terminal_lane.hpp"

#include <cmath>
#include <cstdint>
#include <type_traits>

namespace mcprice {

// Trivially copyable: lives in the device trade table and is read by value in the kernel.
struct european_gbm_trade {
  std::uint64_t key;         // Philox key of the trade
  std::int64_t samples;      // paths, or antithetic pairs of paths
  std::int64_t first_block;  // index of the trade's first canonical block in the run
  float median;              // S_0 exp(ln(F_T / S_0) - w/2): the median of S_T
  float log2_stdev;          // sqrt(w) / ln 2
  terminal_payoff_params payoff;
  std::uint8_t antithetic;  // 1: a sample is the mean of the paths of Z and -Z
};

inline constexpr int european_normals_per_sample = 1;

// S_T = median 2^(z sqrt(w) / ln 2): base 2 because exp2f is one hardware instruction on the
// GPU (about 2 ulp), where expf needs a range reduction around it; the drift is folded into
// the median on the host, in double.
MCPRICE_HD MCPRICE_INLINE float terminal_spot(const european_gbm_trade& t, float z)
{
  return t.median * exp2f(t.log2_stdev * z);
}

// What a sample observes: S_T, and with antithetic sampling S_T of the mirrored path. The
// two-phase route stores these in path scratch; the fused route keeps them in registers.
inline constexpr int max_observations_per_sample = 2;

template <bool Antithetic>
MCPRICE_HD MCPRICE_INLINE void observe(const european_gbm_trade& t, float z, float* obs)
{
  obs[0] = terminal_spot(t, z);
  if constexpr (Antithetic) obs[1] = terminal_spot(t, -z);
}

template <terminal_payoff Kind, bool Antithetic>
MCPRICE_HD MCPRICE_INLINE float sample_payoff(const european_gbm_trade& t, const float* obs)
{
  float const up = evaluate<Kind>(t.payoff, obs[0]);
  if constexpr (!Antithetic) return up;
  else return 0.5F * (up + evaluate<Kind>(t.payoff, obs[1]));
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

inline constexpr int european_samples_per_group = layout::samples_per_group(european_normals_per_sample);

// Walks lane `lane` of canonical block `block` (counted within the trade): its groups_per_lane
// groups in order, calling visit(group, count) with the number of the group's samples that the
// trade has (the last group of a trade may be partial).
template <typename Visit>
MCPRICE_HD MCPRICE_INLINE void for_lane_groups(std::int64_t samples, std::int64_t block, int lane, Visit&& visit)
{
  constexpr int d = european_normals_per_sample;
  constexpr int per = european_samples_per_group;
  constexpr int groups = layout::groups_per_lane(d);
  // A lane whose groups are all full (every lane but a trade's last few) visits them with the
  // count a constant: the same groups and sums, without the per-sample tests of a partial group.
  std::int64_t const first_group = layout::group_index(block, 0, lane, d);
  std::int64_t const last_group = layout::group_index(block, groups - 1, lane, d);
  if ((last_group + 1) * per <= samples) {
    for (int g = 0; g < groups; ++g) visit(first_group + std::int64_t{g} * layout::lanes_per_block, per);
    return;
  }
  for (int g = 0; g < groups; ++g) {
    std::int64_t const group = layout::group_index(block, g, lane, d);
    std::int64_t const first = group * per;
    if (first >= samples) break;
    visit(group, first + per <= samples ? per : static_cast<int>(samples - first));
  }
}

// Moments of one lane; values(group, count, x) fills the group's sample values.
template <typename GroupValues>
MCPRICE_HD MCPRICE_INLINE moments lane_moments(std::int64_t samples, std::int64_t block, int lane, GroupValues&& values)
{
  moments m{};
  for_lane_groups(samples, block, lane, [&](std::int64_t group, int count) {
    float x[european_samples_per_group];
    values(group, count, x);
    add_draw<european_samples_per_group>(m, x, count);
  });
  return m;
}

// The fused route: each group's normals drawn, observed and paid off in registers.
template <typename NormalStream, terminal_payoff Kind, bool Antithetic>
MCPRICE_HD MCPRICE_INLINE moments european_lane_of(const european_gbm_trade& t, std::int64_t block, int lane)
{
  auto const pay = [&](const float (&zs)[4], int count, float* x) {
    MCPRICE_UNROLL
    for (int j = 0; j < european_samples_per_group; ++j) {
      float obs[max_observations_per_sample];
      observe<Antithetic>(t, zs[j], obs);
      x[j] = j < count ? sample_payoff<Kind, Antithetic>(t, obs) : 0.0F;
    }
  };
  using lane_draw = typename rng::terminal_lane_of<NormalStream>::type;
  if constexpr (!std::is_void_v<lane_draw>) {
    // Quasi-random: the lane's groups drawn together (sobol_terminal_lane.hpp), the same bits.
    lane_draw const draw(t.key, static_cast<std::uint64_t>(layout::group_index(block, 0, lane, european_normals_per_sample)));
    return lane_moments(t.samples, block, lane, [&](std::int64_t group, int count, float* x) {
      float zs[4];
      draw.next4(static_cast<std::uint64_t>(group), zs);
      pay(zs, count, x);
    });
  } else {
    return lane_moments(t.samples, block, lane, [&](std::int64_t group, int count, float* x) {
      NormalStream rng(t.key, static_cast<std::uint64_t>(group));
      auto const z = rng.next4();
      float const zs[4] = {z.x, z.y, z.z, z.w};
      pay(zs, count, x);
    });
  }
}

template <typename NormalStream, bool Antithetic>
MCPRICE_HD MCPRICE_INLINE moments european_lane_sampled(const european_gbm_trade& t, std::int64_t block, int lane)
{
  using K = terminal_payoff;
  switch (t.payoff.kind) {
    case K::put:
      return european_lane_of<NormalStream, K::put, Antithetic>(t, block, lane);
    case K::cash_digital_call:
      return european_lane_of<NormalStream, K::cash_digital_call, Antithetic>(t, block, lane);
    case K::cash_digital_put:
      return european_lane_of<NormalStream, K::cash_digital_put, Antithetic>(t, block, lane);
    case K::asset_digital_call:
      return european_lane_of<NormalStream, K::asset_digital_call, Antithetic>(t, block, lane);
    case K::asset_digital_put:
      return european_lane_of<NormalStream, K::asset_digital_put, Antithetic>(t, block, lane);
    default:
      return european_lane_of<NormalStream, K::call, Antithetic>(t, block, lane);
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
