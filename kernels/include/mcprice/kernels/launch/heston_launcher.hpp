#pragma once
// Host entry point of the Heston (QE) kernel. Plain C++ header.
#include "mcprice/kernels/models/heston_path.hpp"

#include <cuda_runtime_api.h>

namespace mcprice::kernels {

// Moments of canonical blocks [block_begin, block_end) of a request of Heston trades (their
// steps in `steps`), written to the partials of block b - block_begin (layout::partials_per_block each). `grid_blocks` = 0: tuned grid.
// `europeans_only`: every trade of the request is a European (a leaner kernel, the same bits).
void launch_heston_blocks(const heston_trade* trades, int num_trades, const heston_step* steps,
                          std::int64_t block_begin, std::int64_t block_end, moments* block_moments, bool europeans_only,
                          int grid_blocks, cudaStream_t stream);
// The same in double precision (`--precision double`).
void launch_heston_blocks(const heston_trade_f64* trades, int num_trades, const heston_step_f64* steps,
                          std::int64_t block_begin, std::int64_t block_end, moments* block_moments, bool europeans_only,
                          int grid_blocks, cudaStream_t stream);

}  // namespace mcprice::kernels
