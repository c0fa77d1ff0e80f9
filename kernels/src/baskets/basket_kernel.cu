#include "mcprice/kernels/launch/baskets.hpp"
#include "mcprice/kernels/launch/canonical_blocks.cuh"
#include "mcprice/kernels/launch/kernel_module.cuh"
#include "mcprice/kernels/launch/stream_choice.cuh"

namespace mcprice::kernels {

MCPRICE_KERNEL_MODULE(kernel_group::prices)
namespace {

using policy = tuning::european_policy;

// Real: the path precision (float; double for --precision double).
template <typename Real, typename Stream>
struct basket_fused_lane {
  const basic_basket_asset<Real>* assets;
  const Real* factors;
  __device__ __forceinline__ moments operator()(const basic_basket_gbm_trade<Real>& t, std::int64_t block_in_trade,
                                                std::int64_t, int lane) const
  {
    return basket_lane<Stream>(t, assets, factors, block_in_trade, lane);
  }
};

template <typename Real, typename Stream>
__global__ void __launch_bounds__(policy::threads_per_block)
    basket_blocks_kernel(const basic_basket_gbm_trade<Real>* __restrict__ trades, int num_trades,
                         const basic_basket_asset<Real>* __restrict__ assets, const Real* __restrict__ factors,
                         block_range blocks, moments* __restrict__ block_moments)
{
  detail::reduce_canonical_blocks(trades, num_trades, blocks, block_moments,
                                  basket_fused_lane<Real, Stream>{assets, factors});
}

}  // namespace

template <typename Real>
void launch_basket_blocks(const basket_ref<Real>& f, block_range blocks, moments* partials, launch_target at)
{
  if (f.num_trades == 0) return;
  detail::with_normal_stream<rng::device_sobol_stream<0, Real>>(at, [&](auto stream) {
    detail::launch_persistent(basket_blocks_kernel<Real, typename decltype(stream)::type>, "basket_blocks_kernel",
                              blocks.size(), at.grid_blocks, at.stream, f.trades, f.num_trades, f.tables.assets,
                              f.tables.factors, blocks, partials);
  });
}

template void launch_basket_blocks(const basket_ref<float>&, block_range, moments*, launch_target);
template void launch_basket_blocks(const basket_ref<double>&, block_range, moments*, launch_target);

}  // namespace mcprice::kernels
