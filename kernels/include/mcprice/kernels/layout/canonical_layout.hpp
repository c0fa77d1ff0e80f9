#pragma once
// The fixed shape of the Monte Carlo sums, shared by every backend and launch setting.
//
// A sample is one independent draw: a path, or an antithetic pair of paths (Z and -Z). A lane
// group is one Philox subsequence. A sample that needs d <= 4 normals shares its group's first
// curand_normal4 with 4/d - 1 neighbours (d = 1: four samples per group), so no drawn normal
// is wasted; a sample that needs more takes a group of its own. A lane evaluates
// groups_per_lane groups, summing in order; a canonical block is lanes_per_block lanes whose
// sums are reduced in a fixed tree (on the GPU: per warp, then with the segment). A segment is up to blocks_per_segment consecutive blocks
// of one trade, reduced in a fixed tree; a trade's segments are added front to back. Work is
// split between jobs only at segment boundaries, so the sums do not depend on job caps, grid
// size, threads or streams.
#include "mcprice/kernels/detail/host_device.hpp"

#include <cstdint>

namespace mcprice::layout {

inline constexpr int lanes_per_block = 256;
inline constexpr std::int64_t blocks_per_segment = 1024;
// A canonical block's sums leave the GPU kernel as one partial per 32 lanes (a warp), reduced
// in a fixed butterfly; the segment's reduction adds the partials. Warps then never wait for
// each other inside a kernel.
inline constexpr int lanes_per_partial = 32;
inline constexpr int partials_per_block = lanes_per_block / lanes_per_partial;

MCPRICE_HD MCPRICE_INLINE constexpr int samples_per_group(int normals_per_sample)
{
  return normals_per_sample == 1 ? 4 : normals_per_sample == 2 ? 2 : 1;
}

// Cheap samples are batched more per lane so that finding the block's trade and reducing its
// sums stay a small share of the work (8 groups of 4 European samples: 32 a lane, 8192 a block).
MCPRICE_HD MCPRICE_INLINE constexpr int groups_per_lane(int normals_per_sample)
{
  return normals_per_sample <= 2 ? 8 : 1;
}

MCPRICE_HD MCPRICE_INLINE constexpr std::int64_t groups_per_block(int normals_per_sample)
{
  return std::int64_t{lanes_per_block} * groups_per_lane(normals_per_sample);
}

MCPRICE_HD MCPRICE_INLINE constexpr std::int64_t samples_per_block(int normals_per_sample)
{
  return groups_per_block(normals_per_sample) * samples_per_group(normals_per_sample);
}

MCPRICE_HD MCPRICE_INLINE constexpr std::int64_t blocks_for(std::int64_t samples, int normals_per_sample)
{
  std::int64_t const per = samples_per_block(normals_per_sample);
  return (samples + per - 1) / per;
}

// The lane group that lane `lane` evaluates in its g-th turn of canonical block `block`.
MCPRICE_HD MCPRICE_INLINE constexpr std::int64_t group_index(std::int64_t block, int g, int lane,
                                                             int normals_per_sample)
{
  return block * groups_per_block(normals_per_sample) + std::int64_t{g} * lanes_per_block + lane;
}

}  // namespace mcprice::layout
