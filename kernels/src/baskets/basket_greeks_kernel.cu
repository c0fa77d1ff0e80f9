#include "mcprice/kernels/launch/baskets.hpp"
#include "mcprice/kernels/launch/canonical_blocks.cuh"
#include "mcprice/kernels/launch/kernel_module.cuh"
#include "mcprice/kernels/launch/stream_choice.cuh"

namespace mcprice::kernels {

MCPRICE_KERNEL_MODULE(kernel_group::greeks)
namespace {

template <typename Stream>
struct basket_greek_lane_fn {
  const basket_asset* assets;
  const float* factors;
  __device__ __forceinline__ priced_basket_greeks operator()(const basket_gbm_trade& t, std::int64_t block_in_trade,
                                                             std::int64_t, int lane) const
  {
    return basket_greek_lane<Stream>(t, assets, factors, block_in_trade, lane);
  }
};

template <typename Stream>
__global__ void __launch_bounds__(tuning::european_policy::threads_per_block)
    basket_greek_blocks_kernel(const basket_gbm_trade* __restrict__ trades, int num_trades,
                               const basket_asset* __restrict__ assets, const float* __restrict__ factors,
                               block_range blocks, moments* __restrict__ price_partials,
                               basket_greek_moments* __restrict__ greek_partials)
{
  detail::reduce_canonical_units(trades, num_trades, blocks,
                                 detail::store_price_and_greeks<basket_greek_moments>{price_partials, greek_partials},
                                 basket_greek_lane_fn<Stream>{assets, factors});
}

}  // namespace

void launch_basket_greek_blocks(const basket_ref<float>& f, block_range blocks, moments* price_partials,
                                basket_greek_moments* greek_partials, launch_target at)
{
  if (f.num_trades == 0) return;
  detail::with_normal_stream<rng::device_sobol_stream<0>>(at, [&](auto stream) {
    detail::launch_persistent(basket_greek_blocks_kernel<typename decltype(stream)::type>, "basket_greek_blocks_kernel",
                              blocks.size(), at.grid_blocks, at.stream, f.trades, f.num_trades, f.tables.assets,
                              f.tables.factors, blocks, price_partials, greek_partials);
  });
}

}  // namespace mcprice::kernels
