#pragma once
// Host entry points of the European GBM kernels. Plain C++ header: callers need no nvcc.
#include "mcprice/kernels/models/european_gbm.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace mcprice::kernels {

// Moments of canonical blocks [block_begin, block_end) of a request, written to
// the partials of block b - block_begin (layout::partials_per_block each). `grid_blocks` = 0 picks the tuned grid; any other value
// gives the same bits.
void launch_european_blocks(const european_gbm_trade* trades, int num_trades, std::int64_t block_begin,
                            std::int64_t block_end, moments* block_moments, int grid_blocks, cudaStream_t stream);

// Sums segment i = the partials of blocks [offsets[i] - base, offsets[i+1] - base), that is
// partials[(offsets[i] - base) x partials_per_block, ...), in a fixed order.
// Call with temp == nullptr to get the temporary storage size in temp_bytes.
void segmented_moments_sum(void* temp, std::size_t& temp_bytes, const moments* partials, const std::int64_t* offsets,
                           std::int64_t base, int num_segments, moments* out, cudaStream_t stream);

}  // namespace mcprice::kernels
