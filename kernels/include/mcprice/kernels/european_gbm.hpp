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
  std::int64_t paths;
  std::int64_t first_block;   // index of the trade's first canonical block in the run
  float spot;
  float drift;                // ln(F_T / S_0) - w/2
  float stdev;                // sqrt(w)
  terminal_payoff_params payoff;
};

inline constexpr int european_normals_per_path = 1;

MCPRICE_HD MCPRICE_INLINE float terminal_spot(const european_gbm_trade& t, float z)
{
  return t.spot * expf(fmaf(t.stdev, z, t.drift));
}

// One lane of canonical block `block` (counted within the trade): groups_per_lane lane
// groups, each one curand_normal4 shared by paths_per_group paths, summed in order.
template <typename NormalStream>
MCPRICE_HD MCPRICE_INLINE moments european_lane(const european_gbm_trade& t, std::int64_t block, int lane)
{
  constexpr int d = european_normals_per_path;
  constexpr int per = layout::paths_per_group(d);
  moments m{};
  for (int g = 0; g < layout::groups_per_lane(d); ++g) {
    std::int64_t const group = layout::group_index(block, g, lane, d);
    std::int64_t const first_path = group * per;
    if (first_path >= t.paths) break;
    NormalStream rng(t.key, static_cast<std::uint64_t>(group));
    auto const z = rng.next4();
    float const zs[4] = {z.x, z.y, z.z, z.w};
    // The paths of one draw are combined in float, like the rest of their arithmetic: their
    // sum and their squared deviations from their own mean (never raw squares, whose rounding
    // would swamp a small variance). The running sums over draws are double.
    float x[4] = {0.0F, 0.0F, 0.0F, 0.0F};
    int count = 0;
    float sum = 0.0F;
    MCPRICE_UNROLL
    for (int j = 0; j < per; ++j) {
      if (first_path + j < t.paths) {
        x[j] = evaluate(t.payoff, terminal_spot(t, zs[j]));
        sum += x[j];
        ++count;
      }
    }
    float const mean = sum / static_cast<float>(count);
    float dev_sq = 0.0F;
    MCPRICE_UNROLL
    for (int j = 0; j < per; ++j) {
      if (j < count) dev_sq = fmaf(x[j] - mean, x[j] - mean, dev_sq);
    }
    m.add_group(sum, dev_sq, count);
  }
  return m;
}

}  // namespace mcprice
