#pragma once
// The two-phase route for GBM path trades: an observation kernel stores each sample's log spot
// after every step of its grid (both paths of an antithetic pair, and the bridge normals of a
// continuously monitored lookback) in path scratch; a payoff kernel replays them through the
// same path state into one value per sample in payoff scratch; a block kernel forms the
// canonical-block moments. The replay does the fused route's arithmetic on the same values, so
// the routes agree bit for bit. Each entry point comes in float and in double (--precision
// double: scratch holds doubles). Plain C++ header.
#include "mcprice/kernels/models/path_gbm.hpp"

#include <cuda_runtime_api.h>

#include <cstdint>

namespace mcprice::kernels {

inline constexpr std::int64_t path_samples_per_block = layout::samples_per_block(path_normals_per_sample);

// Rows of path scratch a sample of this trade needs (a row holds one value per lane of a block).
template <typename Real>
inline int path_rows_per_sample(const basic_path_gbm_trade<Real>& t)
{
  bool const bridge_normals = t.product == path_product::lookback && t.continuous;
  return t.steps * ((t.antithetic ? 2 : 1) + (bridge_normals ? 1 : 0));
}

// Path scratch is block-major, then row, then lane: block j of the job holds
// paths[(j * rows + r) * path_samples_per_block + lane], so a row is read and written coalesced.
void launch_path_observations(const path_gbm_trade* trades, int num_trades, const path_step* grid,
                              std::int64_t block_begin, std::int64_t block_end, float* paths, int rows, int grid_blocks,
                              cudaStream_t stream);
void launch_path_observations(const path_gbm_trade_f64* trades, int num_trades, const path_step_f64* grid,
                              std::int64_t block_begin, std::int64_t block_end, double* paths, int rows,
                              int grid_blocks, cudaStream_t stream);
void launch_path_payoffs(const path_gbm_trade* trades, int num_trades, const path_step* grid, std::int64_t block_begin,
                         std::int64_t block_end, const float* paths, int rows, float* payoffs, int grid_blocks,
                         cudaStream_t stream);
void launch_path_payoffs(const path_gbm_trade_f64* trades, int num_trades, const path_step_f64* grid,
                         std::int64_t block_begin, std::int64_t block_end, const double* paths, int rows,
                         double* payoffs, int grid_blocks, cudaStream_t stream);
// payoffs[j * path_samples_per_block + lane]: the value of lane `lane` of block j of the job.
void launch_path_sample_blocks(const path_gbm_trade* trades, int num_trades, std::int64_t block_begin,
                               std::int64_t block_end, const float* payoffs, moments* partials, int grid_blocks,
                               cudaStream_t stream);
void launch_path_sample_blocks(const path_gbm_trade_f64* trades, int num_trades, std::int64_t block_begin,
                               std::int64_t block_end, const double* payoffs, moments* partials, int grid_blocks,
                               cudaStream_t stream);

}  // namespace mcprice::kernels
