#pragma once
// Path scratch of the two-phase routes of the one-sample-per-lane families (GBM path trades,
// Heston trades): block-major, then row, then lane, so a row is written and read coalesced; and
// the block kernel that turns the payoff scratch into canonical-block partials.
#include "mcprice/kernels/canonical_blocks.cuh"
#include "mcprice/kernels/sample_lanes.hpp"

namespace mcprice::kernels::two_phase {

inline constexpr std::int64_t lanes = layout::samples_per_block(own_subsequence_normals);

// Row r of lane `lane` of block j (within the job).
__device__ __forceinline__ std::int64_t row_index(std::int64_t j, int rows, int r, int lane)
{
  return (j * rows + r) * lanes + lane;
}

// The sample of lane `lane` (one subsequence each, as on the fused route), or -1 past the trade.
template <typename Trade>
__device__ __forceinline__ std::int64_t sample_of(const Trade& t, std::int64_t block_in_trade, int lane)
{
  std::int64_t const group = layout::group_index(block_in_trade, 0, lane, own_subsequence_normals);
  return group < t.samples ? group : -1;
}

// The lane's moments from payoff scratch, summed as the fused route sums its sample.
struct sample_lane {
  const float* payoffs;
  std::int64_t block_begin;

  template <typename Trade>
  __device__ __forceinline__ moments operator()(const Trade& t, std::int64_t block_in_trade, std::int64_t b, int lane) const
  {
    return own_subsequence_lane(t.samples, block_in_trade, lane,
                                [&](std::uint64_t) { return payoffs[(b - block_begin) * lanes + lane]; });
  }
};

}  // namespace mcprice::kernels::two_phase
