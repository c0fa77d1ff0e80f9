#include "mcprice/kernels/launch/basket_launcher.hpp"
#include "mcprice/kernels/launch/canonical_blocks.cuh"
#include "mcprice/kernels/rng/device_normal_stream.cuh"

namespace mcprice::kernels {
namespace {

using policy = tuning::european_policy;

// Real: the path precision (float; double for --precision double).
template <typename Real>
struct basket_fused_lane {
  const basic_basket_asset<Real>* assets;
  const Real* factors;
  __device__ __forceinline__ moments operator()(const basic_basket_gbm_trade<Real>& t, std::int64_t block_in_trade,
                                                std::int64_t, int lane) const
  {
    return basket_lane<rng::device_normal_stream>(t, assets, factors, block_in_trade, lane);
  }
};

template <typename Real>
__global__ void __launch_bounds__(policy::threads_per_block)
    basket_blocks_kernel(const basic_basket_gbm_trade<Real>* __restrict__ trades, int num_trades,
                         const basic_basket_asset<Real>* __restrict__ assets, const Real* __restrict__ factors,
                         std::int64_t block_begin, std::int64_t block_end, moments* __restrict__ block_moments)
{
  detail::reduce_canonical_blocks(trades, num_trades, block_begin, block_end, block_moments,
                                  basket_fused_lane<Real>{assets, factors});
}

template <typename Real>
void launch(const basic_basket_gbm_trade<Real>* trades, int num_trades, const basic_basket_asset<Real>* assets,
            const Real* factors, std::int64_t block_begin, std::int64_t block_end, moments* block_moments,
            int grid_blocks, cudaStream_t stream)
{
  if (num_trades == 0) return;
  detail::launch_persistent(basket_blocks_kernel<Real>, "basket_blocks_kernel", block_end - block_begin, grid_blocks,
                            stream, trades, num_trades, assets, factors, block_begin, block_end, block_moments);
}

}  // namespace

void launch_basket_blocks(const basket_gbm_trade* trades, int num_trades, const basket_asset* assets,
                          const float* factors, std::int64_t block_begin, std::int64_t block_end,
                          moments* block_moments, int grid_blocks, cudaStream_t stream)
{
  launch(trades, num_trades, assets, factors, block_begin, block_end, block_moments, grid_blocks, stream);
}

void launch_basket_blocks(const basket_gbm_trade_f64* trades, int num_trades, const basket_asset_f64* assets,
                          const double* factors, std::int64_t block_begin, std::int64_t block_end,
                          moments* block_moments, int grid_blocks, cudaStream_t stream)
{
  launch(trades, num_trades, assets, factors, block_begin, block_end, block_moments, grid_blocks, stream);
}

}  // namespace mcprice::kernels
