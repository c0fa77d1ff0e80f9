#include "mcprice/kernels/launch/canonical_blocks.cuh"
#include "mcprice/kernels/launch/european.hpp"
#include "mcprice/kernels/launch/kernel_module.cuh"
#include "mcprice/kernels/launch/stream_choice.cuh"

namespace mcprice::kernels {

MCPRICE_KERNEL_MODULE(kernel_group::greeks)
namespace {

using policy = tuning::european_greek_policy;

template <typename Stream>
struct greek_lane {
  __device__ __forceinline__ priced_greeks operator()(const european_gbm_trade& t, std::int64_t block_in_trade,
                                                      std::int64_t, int lane) const
  {
    return european_greek_lane<Stream>(t, block_in_trade, lane);
  }
};

template <typename Stream>
__global__ void __launch_bounds__(policy::threads_per_block, policy::min_blocks_per_sm)
    european_greek_blocks_kernel(const european_gbm_trade* __restrict__ trades, int num_trades, block_range blocks,
                                 moments* __restrict__ price_partials, greek_moments* __restrict__ greek_partials)
{
  detail::reduce_canonical_units(trades, num_trades, blocks,
                                 detail::store_price_and_greeks<greek_moments>{price_partials, greek_partials},
                                 greek_lane<Stream>{});
}

}  // namespace

void launch_european_greek_blocks(const european_ref& f, block_range blocks, moments* price_partials,
                                  greek_moments* greek_partials, launch_target at)
{
  if (f.num_trades == 0) return;
  detail::with_normal_stream<rng::device_sobol_stream<0>>(at, [&](auto stream) {
    detail::launch_persistent(european_greek_blocks_kernel<typename decltype(stream)::type>,
                              "european_greek_blocks_kernel", blocks.size(), at.grid_blocks, at.stream, f.trades,
                              f.num_trades, blocks, price_partials, greek_partials);
  });
}

}  // namespace mcprice::kernels
