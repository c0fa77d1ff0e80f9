#pragma once
// The two-phase route for the same European trades: a path kernel stores each sample's
// observations in path scratch, a payoff kernel turns them into per-sample values in payoff
// scratch, and a block kernel forms the canonical-block moments from those. Same random numbers,
// same float arithmetic and same sums as the fused route, so the results are bit-identical; the
// route exists because early exercise and shared-path evaluation need paths in memory.
#include "mcprice/kernels/models/european_gbm.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace mcprice::kernels {

// Floats of path scratch and of payoff scratch per canonical block.
inline constexpr std::int64_t path_floats_per_block =
    layout::samples_per_block(european_normals_per_sample) * max_observations_per_sample;
inline constexpr std::int64_t payoff_floats_per_block = layout::samples_per_block(european_normals_per_sample);

void launch_european_paths(const european_gbm_trade* trades, int num_trades, std::int64_t block_begin,
                           std::int64_t block_end, float* paths, int grid_blocks, cudaStream_t stream);
void launch_european_payoffs(const european_gbm_trade* trades, int num_trades, std::int64_t block_begin,
                             std::int64_t block_end, const float* paths, float* payoffs, cudaStream_t stream);
void launch_payoff_blocks(const european_gbm_trade* trades, int num_trades, std::int64_t block_begin,
                          std::int64_t block_end, const float* payoffs, moments* block_moments, int grid_blocks,
                          cudaStream_t stream);

}  // namespace mcprice::kernels
