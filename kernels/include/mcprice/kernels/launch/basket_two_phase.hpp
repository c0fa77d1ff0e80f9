#pragma once
// The two-phase route for multi-asset trades: an observation kernel stores each sample's
// terminal spots (every asset, both paths of an antithetic pair) in path scratch; a payoff
// kernel forms the payoff from them with the fused route's code; a block kernel forms the
// canonical-block moments. The routes agree bit for bit. Each entry point comes in float and in
// double (--precision double: scratch holds doubles). Plain C++ header.
#include "mcprice/kernels/models/basket_gbm.hpp"

#include <cuda_runtime_api.h>

#include <cstdint>

namespace mcprice::kernels {

template <typename Real>
inline int basket_rows_per_sample(const basic_basket_gbm_trade<Real>& t)
{
  return t.assets * (t.antithetic ? 2 : 1);
}

void launch_basket_observations(const basket_gbm_trade* trades, int num_trades, const basket_asset* assets,
                                const float* factors, std::int64_t block_begin, std::int64_t block_end, float* paths,
                                int rows, int grid_blocks, cudaStream_t stream);
void launch_basket_observations(const basket_gbm_trade_f64* trades, int num_trades, const basket_asset_f64* assets,
                                const double* factors, std::int64_t block_begin, std::int64_t block_end, double* paths,
                                int rows, int grid_blocks, cudaStream_t stream);
void launch_basket_payoffs(const basket_gbm_trade* trades, int num_trades, const basket_asset* assets,
                           std::int64_t block_begin, std::int64_t block_end, const float* paths, int rows,
                           float* payoffs, int grid_blocks, cudaStream_t stream);
void launch_basket_payoffs(const basket_gbm_trade_f64* trades, int num_trades, const basket_asset_f64* assets,
                           std::int64_t block_begin, std::int64_t block_end, const double* paths, int rows,
                           double* payoffs, int grid_blocks, cudaStream_t stream);
void launch_basket_sample_blocks(const basket_gbm_trade* trades, int num_trades, std::int64_t block_begin,
                                 std::int64_t block_end, const float* payoffs, moments* partials, int grid_blocks,
                                 cudaStream_t stream);
void launch_basket_sample_blocks(const basket_gbm_trade_f64* trades, int num_trades, std::int64_t block_begin,
                                 std::int64_t block_end, const double* payoffs, moments* partials, int grid_blocks,
                                 cudaStream_t stream);

}  // namespace mcprice::kernels
