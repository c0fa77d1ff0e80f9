#include "mcprice/kernels/basket_launcher.hpp"
#include "mcprice/kernels/canonical_blocks.cuh"
#include "mcprice/kernels/device_normal_stream.cuh"

namespace mcprice::kernels {
namespace {

using policy = tuning::european_policy;

struct basket_fused_lane {
  const basket_asset* assets;
  const float* factors;
  __device__ __forceinline__ moments operator()(const basket_gbm_trade& t, std::int64_t block_in_trade, std::int64_t,
                                                int lane) const
  {
    return basket_lane<rng::device_normal_stream>(t, assets, factors, block_in_trade, lane);
  }
};

__global__ void __launch_bounds__(policy::threads_per_block)
basket_blocks_kernel(const basket_gbm_trade* __restrict__ trades, int num_trades, const basket_asset* __restrict__ assets,
                     const float* __restrict__ factors, std::int64_t block_begin, std::int64_t block_end,
                     moments* __restrict__ block_moments)
{
  detail::reduce_canonical_blocks(trades, num_trades, block_begin, block_end, block_moments,
                                  basket_fused_lane{assets, factors});
}

}  // namespace

void launch_basket_blocks(const basket_gbm_trade* trades, int num_trades, const basket_asset* assets, const float* factors,
                          std::int64_t block_begin, std::int64_t block_end, moments* block_moments, int grid_blocks,
                          cudaStream_t stream)
{
  if (num_trades == 0) return;
  detail::launch_persistent(basket_blocks_kernel, "basket_blocks_kernel", block_end - block_begin, grid_blocks,
                            stream, trades, num_trades, assets, factors, block_begin, block_end, block_moments);
}

}  // namespace mcprice::kernels
