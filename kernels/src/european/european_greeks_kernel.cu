#include "mcprice/kernels/launch/canonical_blocks.cuh"
#include "mcprice/kernels/launch/european.hpp"
#include "mcprice/kernels/rng/device_normal_stream.cuh"

namespace mcprice::kernels {
namespace {

using policy = tuning::european_greek_policy;

struct greek_lane {
  __device__ __forceinline__ priced_greeks operator()(const european_gbm_trade& t, std::int64_t block_in_trade,
                                                      std::int64_t, int lane) const
  {
    return european_greek_lane<rng::device_normal_stream>(t, block_in_trade, lane);
  }
};

__global__ void __launch_bounds__(policy::threads_per_block, policy::min_blocks_per_sm)
    european_greek_blocks_kernel(const european_gbm_trade* __restrict__ trades, int num_trades,
                                 std::int64_t block_begin, std::int64_t block_end, moments* __restrict__ price_partials,
                                 greek_moments* __restrict__ greek_partials)
{
  detail::reduce_canonical_units(trades, num_trades, block_begin, block_end,
                                 detail::store_price_and_greeks<greek_moments>{price_partials, greek_partials},
                                 greek_lane{});
}

}  // namespace

void launch_european_greek_blocks(const european_ref& f, block_range blocks, moments* price_partials,
                                  greek_moments* greek_partials, launch_target at)
{
  if (f.num_trades == 0) return;
  detail::launch_persistent(european_greek_blocks_kernel, "european_greek_blocks_kernel", blocks.size(), at.grid_blocks,
                            at.stream, f.trades, f.num_trades, blocks.begin, blocks.end, price_partials,
                            greek_partials);
}

}  // namespace mcprice::kernels
