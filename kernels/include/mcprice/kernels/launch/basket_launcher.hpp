#pragma once
// Host entry point of the correlated multi-asset GBM kernel. Plain C++ header.
#include "mcprice/kernels/models/basket_gbm.hpp"

#include <cuda_runtime_api.h>

namespace mcprice::kernels {

// Moments of canonical blocks [block_begin, block_end) of a request of multi-asset trades
// (their assets and correlation factors in the two tables), written to
// the partials of block b - block_begin (layout::partials_per_block each). `grid_blocks` = 0: tuned grid.
void launch_basket_blocks(const basket_gbm_trade* trades, int num_trades, const basket_asset* assets,
                          const float* factors, std::int64_t block_begin, std::int64_t block_end,
                          moments* block_moments, int grid_blocks, cudaStream_t stream);
// The same in double precision (--precision double).
void launch_basket_blocks(const basket_gbm_trade_f64* trades, int num_trades, const basket_asset_f64* assets,
                          const double* factors, std::int64_t block_begin, std::int64_t block_end,
                          moments* block_moments, int grid_blocks, cudaStream_t stream);

}  // namespace mcprice::kernels
