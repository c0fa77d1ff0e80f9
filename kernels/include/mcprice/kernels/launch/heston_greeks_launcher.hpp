#pragma once
// Host entry point of the Heston kernel with Greeks (scenario lanes). Plain C++ header.
#include "mcprice/kernels/greeks/heston_greeks.hpp"

#include <cuda_runtime_api.h>

#include <cstdint>

namespace mcprice::kernels {

// Like launch_heston_blocks (the same price partials, bit for bit), plus each partial's Greek
// sums (path_greek_moments: summed with segmented_path_greek_sum). Each trade's step table holds
// its two rolled first steps after its own (heston_greeks.hpp).
void launch_heston_greek_blocks(const heston_trade* trades, int num_trades, const heston_step* steps,
                                std::int64_t block_begin, std::int64_t block_end, moments* price_partials,
                                path_greek_moments* greek_partials, int grid_blocks, cudaStream_t stream);

}  // namespace mcprice::kernels
