#include "mcprice/kernels/launch/canonical_blocks.cuh"
#include "mcprice/kernels/launch/kernel_module.cuh"
#include "mcprice/kernels/launch/paths.hpp"
#include "mcprice/kernels/launch/stream_choice.cuh"

namespace mcprice::kernels {

MCPRICE_KERNEL_MODULE(kernel_group::prices)
namespace {

using policy = tuning::european_policy;

// Real: the path precision (float; double for `--precision double`). Registers uncapped in both.
template <typename Real, typename Stream>
struct path_fused_lane {
  const basic_path_step<Real>* grid;
  __device__ __forceinline__ moments operator()(const basic_path_gbm_trade<Real>& t, std::int64_t block_in_trade,
                                                std::int64_t, int lane) const
  {
    return path_lane<Stream>(t, grid, block_in_trade, lane);
  }
};

template <typename Real, typename Stream>
__global__ void __launch_bounds__(policy::threads_per_block)
    path_blocks_kernel(const basic_path_gbm_trade<Real>* __restrict__ trades, int num_trades,
                       const basic_path_step<Real>* __restrict__ grid, block_range blocks,
                       moments* __restrict__ block_moments)
{
  detail::reduce_canonical_blocks(trades, num_trades, blocks, block_moments, path_fused_lane<Real, Stream>{grid});
}

}  // namespace

template <typename Real>
void launch_path_blocks(const path_ref<Real>& f, block_range blocks, moments* partials, launch_target at)
{
  if (f.num_trades == 0) return;
  detail::with_normal_stream<rng::device_sobol_stream<2, Real>>(at, [&](auto stream) {
    detail::launch_persistent(path_blocks_kernel<Real, typename decltype(stream)::type>, "path_blocks_kernel",
                              blocks.size(), at.grid_blocks, at.stream, f.trades, f.num_trades, f.tables.grid, blocks,
                              partials);
  });
}

template void launch_path_blocks(const path_ref<float>&, block_range, moments*, launch_target);
template void launch_path_blocks(const path_ref<double>&, block_range, moments*, launch_target);

}  // namespace mcprice::kernels
