#pragma once
// Host entry points of the multi-asset kernel with Greeks. Plain C++ header.
#include "mcprice/kernels/greeks/basket_greeks.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace mcprice::kernels {

// Like launch_basket_blocks (the same price partials, bit for bit), plus each partial's Greek
// sums (trades with t.greeks; the others' stay zero).
void launch_basket_greek_blocks(const basket_gbm_trade* trades, int num_trades, const basket_asset* assets,
                                const float* factors, std::int64_t block_begin, std::int64_t block_end,
                                moments* price_partials, basket_greek_moments* greek_partials, int grid_blocks,
                                cudaStream_t stream);

// segmented_moments_sum for the multi-asset Greek sums.
void segmented_basket_greek_sum(void* temp, std::size_t& temp_bytes, const basket_greek_moments* partials,
                                const std::int64_t* offsets, std::int64_t base, int num_segments,
                                basket_greek_moments* out, cudaStream_t stream);

}  // namespace mcprice::kernels
