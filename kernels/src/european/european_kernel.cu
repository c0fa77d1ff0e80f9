#include "mcprice/kernels/launch/canonical_blocks.cuh"
#include "mcprice/kernels/launch/european.hpp"
#include "mcprice/kernels/launch/kernel_module.cuh"
#include "mcprice/kernels/launch/stream_choice.cuh"

namespace mcprice::kernels {

MCPRICE_KERNEL_MODULE(kernel_group::prices)
namespace {

using policy = tuning::european_fused_policy;

template <typename Stream>
struct fused_lane {
  __device__ __forceinline__ moments operator()(const european_gbm_trade& t, std::int64_t block_in_trade, std::int64_t,
                                                int lane) const
  {
    return european_lane<Stream>(t, block_in_trade, lane);
  }
};

template <typename Stream>
__global__ void __launch_bounds__(policy::threads_per_block, policy::min_blocks_per_sm)
    european_blocks_kernel(const european_gbm_trade* __restrict__ trades, int num_trades, block_range blocks,
                           moments* __restrict__ block_moments)
{
  detail::reduce_canonical_blocks(trades, num_trades, blocks, block_moments, fused_lane<Stream>{});
}

}  // namespace

void launch_european_blocks(const european_ref& f, block_range blocks, moments* partials, launch_target at)
{
  if (f.num_trades == 0) return;
  detail::with_normal_stream<rng::device_sobol_stream<0>>(at, [&](auto stream) {
    detail::launch_persistent(european_blocks_kernel<typename decltype(stream)::type>, "european_blocks_kernel",
                              blocks.size(), at.grid_blocks, at.stream, f.trades, f.num_trades, blocks, partials);
  });
}

}  // namespace mcprice::kernels
