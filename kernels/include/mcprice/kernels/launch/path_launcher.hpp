#pragma once
// Host entry point of the path-dependent GBM kernel. Plain C++ header.
#include "mcprice/kernels/models/path_gbm.hpp"

#include <cuda_runtime_api.h>

namespace mcprice::kernels {

// Moments of canonical blocks [block_begin, block_end) of a request of path trades (their
// steps in `grid`), written to the partials of block b - block_begin (layout::partials_per_block each). `grid_blocks` = 0: tuned grid.
void launch_path_blocks(const path_gbm_trade* trades, int num_trades, const path_step* grid, std::int64_t block_begin,
                        std::int64_t block_end, moments* block_moments, int grid_blocks, cudaStream_t stream);
// The same in double precision (`--precision double`); GBM Europeans are one-step path trades there.
void launch_path_blocks(const path_gbm_trade_f64* trades, int num_trades, const path_step_f64* grid,
                        std::int64_t block_begin, std::int64_t block_end, moments* block_moments, int grid_blocks,
                        cudaStream_t stream);

}  // namespace mcprice::kernels
