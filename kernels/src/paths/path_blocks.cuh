#pragma once
// The path-dependent GBM fused kernels, included by the sources that compile them:
// path_kernel.cu (float, Philox; the entry point), path_kernel_quasi.cu (float, Sobol) and
// path_kernel_double.cu (--precision double): each a module of its own (kernel_modules.hpp).
#include "mcprice/kernels/launch/canonical_blocks.cuh"
#include "mcprice/kernels/launch/paths.hpp"
#include "mcprice/kernels/launch/stream_choice.cuh"

namespace mcprice::kernels {
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

template <typename Real, typename Stream>
void launch_path_blocks_with(const path_ref<Real>& f, block_range blocks, moments* partials, launch_target at)
{
  detail::launch_persistent(path_blocks_kernel<Real, Stream>, "path_blocks_kernel", blocks.size(), at.grid_blocks,
                            at.stream, f.trades, f.num_trades, f.tables.grid, blocks, partials);
}

}  // namespace

namespace detail {
// path_kernel_quasi.cu and path_kernel_double.cu.
void launch_path_blocks_quasi(const path_ref<float>& f, block_range blocks, moments* partials, launch_target at);
void launch_path_blocks_double(const path_ref<double>& f, block_range blocks, moments* partials, launch_target at);
}  // namespace detail

}  // namespace mcprice::kernels
