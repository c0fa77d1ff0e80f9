#pragma once
// The canonical-block loop shared by the pricing kernels (Trade: a trivially copyable record with
// first_block, e.g. european_gbm_trade or path_gbm_trade): a persistent grid
// walks the request's blocks, finds each block's trade, has every lane compute its moments and
// reduces them with the fixed 256-lane tree.
#include "mcprice/kernels/european_gbm.hpp"
#include "mcprice/kernels/tuning.hpp"
#include "mcprice/memory/cuda_error.hpp"

#include <cub/block/block_reduce.cuh>

namespace mcprice::kernels::detail {

template <typename Trade>
__device__ __forceinline__ int trade_of_block(const Trade* trades, int num_trades, std::int64_t block)
{
  int lo = 0;
  int hi = num_trades - 1;
  while (lo < hi) {  // last trade whose first_block <= block
    int const mid = (lo + hi + 1) / 2;
    if (trades[mid].first_block <= block) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

// A persistent grid of exactly the resident blocks: a second, partial wave would leave most of
// the GPU idle at the end. `requested` > 0 overrides (it never changes results).
template <typename Kernel>
int persistent_grid(Kernel kernel, int threads, std::int64_t work_blocks, int requested)
{
  if (requested > 0) return requested;
  int device = 0;
  int sms = 0;
  int per_sm = 0;
  MCPRICE_CUDA_TRY(cudaGetDevice(&device));
  MCPRICE_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  MCPRICE_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, 0));
  std::int64_t const full = std::int64_t{sms} * (per_sm > 0 ? per_sm : 1);
  return static_cast<int>(work_blocks < full ? work_blocks : full);
}

// Visits the request's canonical blocks [block_begin, block_end) with a persistent grid:
// visit(trade, block within the trade, block within the request, lane) for every lane.
template <typename Trade, typename Visit>
__device__ __forceinline__ void for_canonical_blocks(const Trade* __restrict__ trades, int num_trades,
                                                     std::int64_t block_begin, std::int64_t block_end, Visit visit)
{
  __shared__ Trade current;
  for (std::int64_t b = block_begin + blockIdx.x; b < block_end; b += gridDim.x) {
    if (threadIdx.x == 0) current = trades[trade_of_block(trades, num_trades, b)];
    __syncthreads();
    Trade const t = current;
    visit(t, b - t.first_block, b, static_cast<int>(threadIdx.x));
    __syncthreads();  // the shared trade is reused by the next canonical block
  }
}

// lane_fn(trade, block within the trade, block within the request, lane) -> moments.
template <typename Trade, typename LaneFn>
__device__ __forceinline__ void reduce_canonical_blocks(const Trade* __restrict__ trades, int num_trades,
                                                        std::int64_t block_begin, std::int64_t block_end,
                                                        moments* __restrict__ block_moments, LaneFn lane_fn)
{
  constexpr int threads = tuning::european_policy::threads_per_block;
  using block_reduce = cub::BlockReduce<moments, threads, cub::BLOCK_REDUCE_WARP_REDUCTIONS>;
  __shared__ typename block_reduce::TempStorage temp;
  __shared__ Trade current;

  for (std::int64_t b = block_begin + blockIdx.x; b < block_end; b += gridDim.x) {
    // One thread finds the canonical block's trade; the others read it from shared memory.
    if (threadIdx.x == 0) current = trades[trade_of_block(trades, num_trades, b)];
    __syncthreads();
    Trade const t = current;
    moments const m = lane_fn(t, b - t.first_block, b, static_cast<int>(threadIdx.x));
    moments const total = block_reduce(temp).Reduce(m, moments_sum{});
    if (threadIdx.x == 0) block_moments[b - block_begin] = total;
    __syncthreads();  // temp storage and the shared trade are reused by the next canonical block
  }
}

}  // namespace mcprice::kernels::detail
