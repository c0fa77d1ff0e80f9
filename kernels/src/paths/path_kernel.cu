#include "mcprice/kernels/launch/canonical_blocks.cuh"
#include "mcprice/kernels/rng/device_normal_stream.cuh"
#include "mcprice/kernels/launch/path_launcher.hpp"

namespace mcprice::kernels {
namespace {

using policy = tuning::european_policy;

// Real: the path precision (float; double for `--precision double`). Registers uncapped in both.
template <typename Real>
struct path_fused_lane {
  const basic_path_step<Real>* grid;
  __device__ __forceinline__ moments operator()(const basic_path_gbm_trade<Real>& t, std::int64_t block_in_trade,
                                                std::int64_t, int lane) const
  {
    return path_lane<rng::device_normal_stream>(t, grid, block_in_trade, lane);
  }
};

template <typename Real>
__global__ void __launch_bounds__(policy::threads_per_block)
    path_blocks_kernel(const basic_path_gbm_trade<Real>* __restrict__ trades, int num_trades,
                       const basic_path_step<Real>* __restrict__ grid, std::int64_t block_begin, std::int64_t block_end,
                       moments* __restrict__ block_moments)
{
  detail::reduce_canonical_blocks(trades, num_trades, block_begin, block_end, block_moments,
                                  path_fused_lane<Real>{grid});
}

template <typename Real>
void launch(const basic_path_gbm_trade<Real>* trades, int num_trades, const basic_path_step<Real>* grid,
            std::int64_t block_begin, std::int64_t block_end, moments* block_moments, int grid_blocks,
            cudaStream_t stream, const char* name)
{
  if (num_trades == 0) return;
  detail::launch_persistent(path_blocks_kernel<Real>, name, block_end - block_begin, grid_blocks, stream, trades,
                            num_trades, grid, block_begin, block_end, block_moments);
}

}  // namespace

void launch_path_blocks(const path_gbm_trade* trades, int num_trades, const path_step* grid, std::int64_t block_begin,
                        std::int64_t block_end, moments* block_moments, int grid_blocks, cudaStream_t stream)
{
  launch(trades, num_trades, grid, block_begin, block_end, block_moments, grid_blocks, stream, "path_blocks_kernel");
}

void launch_path_blocks(const path_gbm_trade_f64* trades, int num_trades, const path_step_f64* grid,
                        std::int64_t block_begin, std::int64_t block_end, moments* block_moments, int grid_blocks,
                        cudaStream_t stream)
{
  launch(trades, num_trades, grid, block_begin, block_end, block_moments, grid_blocks, stream,
         "path_blocks_kernel<double>");
}

}  // namespace mcprice::kernels
