#include "mcprice/kernels/canonical_blocks.cuh"
#include "mcprice/kernels/device_normal_stream.cuh"
#include "mcprice/kernels/heston_launcher.hpp"

namespace mcprice::kernels {
namespace {

using policy = tuning::european_policy;

struct heston_fused_lane {
  const heston_step* steps;
  __device__ __forceinline__ moments operator()(const heston_trade& t, std::int64_t block_in_trade, std::int64_t,
                                                int lane) const
  {
    return heston_lane<rng::device_normal_stream>(t, steps, block_in_trade, lane);
  }
};

__global__ void __launch_bounds__(policy::threads_per_block)
heston_blocks_kernel(const heston_trade* __restrict__ trades, int num_trades, const heston_step* __restrict__ steps,
                     std::int64_t block_begin, std::int64_t block_end, moments* __restrict__ block_moments)
{
  detail::reduce_canonical_blocks(trades, num_trades, block_begin, block_end, block_moments, heston_fused_lane{steps});
}

}  // namespace

void launch_heston_blocks(const heston_trade* trades, int num_trades, const heston_step* steps, std::int64_t block_begin,
                          std::int64_t block_end, moments* block_moments, int grid_blocks, cudaStream_t stream)
{
  if (num_trades == 0) return;
  detail::launch_persistent(heston_blocks_kernel, "heston_blocks_kernel", block_end - block_begin, grid_blocks,
                            stream, trades, num_trades, steps, block_begin, block_end, block_moments);
}

}  // namespace mcprice::kernels
