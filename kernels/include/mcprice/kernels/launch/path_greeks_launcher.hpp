#pragma once
// Host entry points of the path kernel with Greeks (Asians). Plain C++ header.
#include "mcprice/kernels/greeks/path_greeks.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace mcprice::kernels {

// Like launch_path_blocks (the same price partials, bit for bit), plus each partial's Greek
// sums; greek_grid is parallel to grid. The trades are all Asians, or (scenario_lanes) all
// barriers, touches and lookbacks.
void launch_path_greek_blocks(const path_gbm_trade* trades, int num_trades, const path_step* grid,
                              const path_greek_step* greek_grid, std::int64_t block_begin, std::int64_t block_end,
                              moments* price_partials, path_greek_moments* greek_partials, bool scenario_lanes,
                              int grid_blocks, cudaStream_t stream);

// segmented_moments_sum for the path Greek sums: the same segments, the same fixed order.
void segmented_path_greek_sum(void* temp, std::size_t& temp_bytes, const path_greek_moments* partials,
                              const std::int64_t* offsets, std::int64_t base, int num_segments, path_greek_moments* out,
                              cudaStream_t stream);

}  // namespace mcprice::kernels
