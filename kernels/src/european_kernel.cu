#include "mcprice/kernels/device_normal_stream.cuh"
#include "mcprice/kernels/european_launcher.hpp"
#include "mcprice/kernels/tuning.hpp"
#include "mcprice/memory/cuda_error.hpp"

#include <cub/block/block_reduce.cuh>

namespace mcprice::kernels {
namespace {

using policy = tuning::european_policy;

__device__ __forceinline__ int trade_of_block(const european_gbm_trade* trades, int num_trades,
                                              std::int64_t block)
{
  int lo = 0;
  int hi = num_trades - 1;
  while (lo < hi) {  // last trade whose first_block <= block
    int const mid = (lo + hi + 1) / 2;
    if (trades[mid].first_block <= block) lo = mid; else hi = mid - 1;
  }
  return lo;
}

__global__ void __launch_bounds__(policy::threads_per_block, policy::min_blocks_per_sm)
european_blocks_kernel(const european_gbm_trade* __restrict__ trades, int num_trades, std::int64_t block_begin,
                       std::int64_t block_end, moments* __restrict__ block_moments)
{
  using block_reduce =
      cub::BlockReduce<moments, policy::threads_per_block, cub::BLOCK_REDUCE_WARP_REDUCTIONS>;
  __shared__ typename block_reduce::TempStorage temp;
  __shared__ european_gbm_trade current;

  for (std::int64_t b = block_begin + blockIdx.x; b < block_end; b += gridDim.x) {
    // One thread finds the canonical block's trade; the others read it from shared memory.
    if (threadIdx.x == 0) current = trades[trade_of_block(trades, num_trades, b)];
    __syncthreads();
    european_gbm_trade const t = current;
    moments const m = european_lane<rng::device_normal_stream>(t, b - t.first_block, static_cast<int>(threadIdx.x));
    moments const total = block_reduce(temp).Reduce(m, moments_sum{});
    if (threadIdx.x == 0) block_moments[b - block_begin] = total;
    __syncthreads();  // temp storage and the shared trade are reused by the next canonical block
  }
}

}  // namespace

void launch_european_blocks(const european_gbm_trade* trades, int num_trades, std::int64_t block_begin,
                            std::int64_t block_end, moments* block_moments, int grid_blocks, cudaStream_t stream)
{
  std::int64_t const total_blocks = block_end - block_begin;
  if (num_trades == 0 || total_blocks <= 0) return;
  if (grid_blocks <= 0) {
    // A persistent grid of exactly the resident blocks: a second, partial wave would leave
    // most of the GPU idle at the end.
    int device = 0;
    int sms = 0;
    int per_sm = 0;
    MCPRICE_CUDA_TRY(cudaGetDevice(&device));
    MCPRICE_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    MCPRICE_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, european_blocks_kernel,
                                                                   policy::threads_per_block, 0));
    std::int64_t const full = std::int64_t{sms} * (per_sm > 0 ? per_sm : 1);
    grid_blocks = static_cast<int>(total_blocks < full ? total_blocks : full);
  }
  european_blocks_kernel<<<grid_blocks, policy::threads_per_block, 0, stream>>>(
      trades, num_trades, block_begin, block_end, block_moments);
  MCPRICE_CHECK_LAUNCH("european_blocks_kernel");
}

}  // namespace mcprice::kernels
