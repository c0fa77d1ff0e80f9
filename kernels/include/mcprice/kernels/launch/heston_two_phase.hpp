#pragma once
// The two-phase route for Heston trades: an observation kernel stores, after every step, the log
// spot and the step's integrated variance of each path of a sample (and the bridge normal of a
// continuously monitored lookback); a payoff kernel replays them through the fused route's path
// state; a block kernel forms the canonical-block moments. Same values, same arithmetic: the
// routes agree bit for bit. Each entry point comes in float and in double (--precision double:
// scratch holds doubles). Plain C++ header.
#include "mcprice/kernels/models/heston_path.hpp"

#include <cuda_runtime_api.h>

#include <cstdint>

namespace mcprice::kernels {

// Rows of path scratch a sample of this trade needs (a row holds one value per lane of a block).
template <typename Real>
inline int heston_rows_per_sample(const basic_heston_trade<Real>& t)
{
  bool const bridge_normals = t.product == path_product::lookback && t.continuous;
  return t.steps * (2 * (t.antithetic ? 2 : 1) + (bridge_normals ? 1 : 0));
}

void launch_heston_observations(const heston_trade* trades, int num_trades, const heston_step* steps,
                                std::int64_t block_begin, std::int64_t block_end, float* paths, int rows,
                                int grid_blocks, cudaStream_t stream);
void launch_heston_observations(const heston_trade_f64* trades, int num_trades, const heston_step_f64* steps,
                                std::int64_t block_begin, std::int64_t block_end, double* paths, int rows,
                                int grid_blocks, cudaStream_t stream);
void launch_heston_payoffs(const heston_trade* trades, int num_trades, const heston_step* steps,
                           std::int64_t block_begin, std::int64_t block_end, const float* paths, int rows,
                           float* payoffs, int grid_blocks, cudaStream_t stream);
void launch_heston_payoffs(const heston_trade_f64* trades, int num_trades, const heston_step_f64* steps,
                           std::int64_t block_begin, std::int64_t block_end, const double* paths, int rows,
                           double* payoffs, int grid_blocks, cudaStream_t stream);
void launch_heston_sample_blocks(const heston_trade* trades, int num_trades, std::int64_t block_begin,
                                 std::int64_t block_end, const float* payoffs, moments* partials, int grid_blocks,
                                 cudaStream_t stream);
void launch_heston_sample_blocks(const heston_trade_f64* trades, int num_trades, std::int64_t block_begin,
                                 std::int64_t block_end, const double* payoffs, moments* partials, int grid_blocks,
                                 cudaStream_t stream);

}  // namespace mcprice::kernels
