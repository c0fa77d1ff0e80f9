#pragma once
// Launch shapes in one table (the CUB convention), not literals spread over kernels. Block
// size is pinned to the canonical block: the in-block reduction tree is part of the result's
// definition. The grid is the resident block count (a persistent grid); its size only
// changes scheduling, never the numbers.
#include "mcprice/kernels/canonical_layout.hpp"

namespace mcprice::tuning {

struct european_policy {
  static constexpr int threads_per_block = layout::lanes_per_block;
  static constexpr int min_blocks_per_sm = 8;  // caps registers at 32: a full SM of warps
};

}  // namespace mcprice::tuning
