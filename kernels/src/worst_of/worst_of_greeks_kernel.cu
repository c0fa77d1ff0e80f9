#include "mcprice/kernels/launch/canonical_blocks.cuh"
#include "mcprice/kernels/launch/kernel_module.cuh"
#include "mcprice/kernels/launch/stream_choice.cuh"
#include "mcprice/kernels/launch/worst_of.hpp"

namespace mcprice::kernels {

MCPRICE_KERNEL_MODULE(kernel_group::greeks)
namespace {

template <typename Stream>
struct worst_of_greek_lane_fn {
  worst_of_tables<float> tab;
  __device__ __forceinline__ priced_basket_greeks operator()(const worst_of_trade& t, std::int64_t block_in_trade,
                                                             std::int64_t, int lane) const
  {
    return worst_of_greek_lane<Stream>(t, tab.grid, tab.greek_grid, tab.log_initials, tab.spots, tab.factors,
                                       block_in_trade, lane);
  }
};

template <typename Stream>
__global__ void __launch_bounds__(tuning::european_policy::threads_per_block)
    worst_of_greek_blocks_kernel(const worst_of_trade* __restrict__ trades, int num_trades, worst_of_tables<float> tab,
                                 block_range blocks, moments* __restrict__ price_partials,
                                 basket_greek_moments* __restrict__ greek_partials)
{
  detail::reduce_canonical_units(trades, num_trades, blocks,
                                 detail::store_price_and_greeks<basket_greek_moments>{price_partials, greek_partials},
                                 worst_of_greek_lane_fn<Stream>{tab});
}

}  // namespace

void launch_worst_of_greek_blocks(const worst_of_ref<float>& f, block_range blocks, moments* price_partials,
                                  basket_greek_moments* greek_partials, launch_target at)
{
  if (f.num_trades == 0) return;
  detail::with_normal_stream<rng::device_sobol_stream<worst_of_sobol_assets>>(at, [&](auto stream) {
    detail::launch_persistent(worst_of_greek_blocks_kernel<typename decltype(stream)::type>,
                              "worst_of_greek_blocks_kernel", blocks.size(), at.grid_blocks, at.stream, f.trades,
                              f.num_trades, f.tables, blocks, price_partials, greek_partials);
  });
}

}  // namespace mcprice::kernels
