#pragma once
// Host entry points of the European kernel with Greeks. Plain C++ header: callers need no nvcc.
#include "mcprice/kernels/greeks/european_greeks.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace mcprice::kernels {

// Like launch_european_blocks (the same price partials, bit for bit), plus each partial's
// Greek sums in greek_partials.
void launch_european_greek_blocks(const european_gbm_trade* trades, int num_trades, std::int64_t block_begin,
                                  std::int64_t block_end, moments* price_partials, greek_moments* greek_partials,
                                  int grid_blocks, cudaStream_t stream);

// segmented_moments_sum for the Greek sums: the same segments, the same fixed order.
void segmented_greek_sum(void* temp, std::size_t& temp_bytes, const greek_moments* partials,
                         const std::int64_t* offsets, std::int64_t base, int num_segments, greek_moments* out,
                         cudaStream_t stream);

}  // namespace mcprice::kernels
