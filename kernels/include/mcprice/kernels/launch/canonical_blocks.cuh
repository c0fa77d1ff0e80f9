#pragma once
// The canonical-block loop shared by the pricing kernels (Trade: a trivially copyable record with
// first_block, e.g. european_gbm_trade or path_gbm_trade): a persistent grid
// walks the request's blocks, finds each block's trade, has every lane compute its moments and
// reduces them per warp in a fixed tree.
#include "mcprice/kernels/greeks/basket_greeks.hpp"
#include "mcprice/kernels/greeks/european_greeks.hpp"
#include "mcprice/kernels/greeks/path_greeks.hpp"
#include "mcprice/kernels/launch/family_ref.hpp"
#include "mcprice/kernels/launch/tuning.hpp"
#include "mcprice/memory/cuda_error.hpp"

#include <map>
#include <mutex>
#include <tuple>

namespace mcprice::kernels::detail {

// The last trade whose first_block <= block, by one thread's binary search (for kernels whose
// threads each look up their own block).
template <typename Trade>
__device__ __forceinline__ int trade_of_block_by_thread(const Trade* trades, int num_trades, std::int64_t block)
{
  int lo = 0;
  int hi = num_trades - 1;
  while (lo < hi) {
    int const mid = (lo + hi + 1) / 2;
    if (trades[mid].first_block <= block) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

// The last trade whose first_block <= block, found by the 32 lanes of one warp together: each
// round probes 32 evenly spaced trades and keeps the interval between the last probe at or below
// the block and the next, so 8,192 trades take 3 dependent loads where a binary search by one
// thread takes 13 (the block's other warps wait on them at the barrier). Call from a full warp.
template <typename Trade>
__device__ __forceinline__ int trade_of_block(const Trade* trades, int num_trades, std::int64_t block)
{
  int const lane = static_cast<int>(threadIdx.x & 31U);
  int lo = 0;  // trades[0].first_block == 0 <= block
  int hi = num_trades - 1;
  while (lo < hi) {
    int const step = (hi - lo + 31) / 32;
    int const probe = min(lo + (lane + 1) * step, hi);
    unsigned const below = __ballot_sync(0xffffffffU, trades[probe].first_block <= block);
    int const n = __popc(below);  // probes are sorted, so the true ones come first
    int const next_hi = min(lo + (n + 1) * step - 1, hi);
    if (n > 0) lo = min(lo + n * step, hi);
    hi = next_hi;
  }
  return lo;
}

// Warp 0 finds canonical block b's trade and thread 0 stages it in shared memory.
template <typename Trade>
__device__ __forceinline__ void stage_trade(const Trade* trades, int num_trades, std::int64_t b, Trade& current)
{
  if (threadIdx.x < 32) {
    int const index = trade_of_block(trades, num_trades, b);
    if (threadIdx.x == 0) current = trades[index];
  }
}

// A persistent grid of exactly the resident blocks: a second, partial wave would leave most of
// the GPU idle at the end. `requested` > 0 overrides (it never changes results).
// The resident blocks are asked of the runtime once per kernel, block size and device (a few
// microseconds a query, which every job would pay otherwise).
template <typename Kernel>
int persistent_grid(Kernel kernel, int threads, std::int64_t work_blocks, int requested)
{
  if (requested > 0) return requested;
  static std::mutex mutex;
  static std::map<std::tuple<const void*, int, int>, int> resident;
  int device = 0;
  MCPRICE_CUDA_TRY(cudaGetDevice(&device));
  auto const key = std::make_tuple(reinterpret_cast<const void*>(kernel), threads, device);
  int full = 0;
  {
    std::lock_guard<std::mutex> const lock(mutex);
    auto const it = resident.find(key);
    if (it != resident.end()) full = it->second;
  }
  if (full == 0) {
    int sms = 0;
    int per_sm = 0;
    MCPRICE_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    MCPRICE_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, 0));
    full = sms * (per_sm > 0 ? per_sm : 1);
    std::lock_guard<std::mutex> const lock(mutex);
    resident[key] = full;
  }
  return static_cast<int>(work_blocks < full ? work_blocks : std::int64_t{full});
}

// Launches `kernel`, of `threads` threads a block, over `work_blocks` units of work with a
// persistent grid; `what` names it in a launch error ("launch of what").
template <typename... Params, typename... Args>
void launch_persistent_of(int threads, void (*kernel)(Params...), const char* what, std::int64_t work_blocks,
                          int requested_grid, cudaStream_t stream, Args... args)
{
  if (work_blocks <= 0) return;
  int const grid = persistent_grid(kernel, threads, work_blocks, requested_grid);
  kernel<<<grid, threads, 0, stream>>>(args...);
  cudaError_t const status = cudaGetLastError();
  if (status != cudaSuccess) throw cuda_error(status, what, __FILE__, __LINE__);
}

// The same for a canonical-block kernel (the tuned block size) over `work_blocks` canonical blocks.
template <typename... Params, typename... Args>
void launch_persistent(void (*kernel)(Params...), const char* what, std::int64_t work_blocks, int requested_grid,
                       cudaStream_t stream, Args... args)
{
  launch_persistent_of(tuning::european_policy::threads_per_block, kernel, what, work_blocks, requested_grid, stream,
                       args...);
}

// The request's stop word (block_range::stop): non-zero once the host has been asked to stop.
// Volatile, so every unit reads the word afresh (from L2: the host's copy lands there while the
// kernel runs). The loops read it before each unit's work and use it at once: a value held
// across the work cost the European kernel, at its register cap, a spilled word. Read after the
// work instead, a block that started after the stop still did all of its first unit, which is
// the whole of a queued Heston block (docs/reliability.md, the prices-only stop).
__device__ __forceinline__ bool stop_asked(const unsigned int* stop)
{
  return stop != nullptr && *static_cast<const volatile unsigned int*>(stop) != 0U;
}

// Visits the job's canonical blocks with a persistent grid: visit(trade, block within the
// trade, block within the request, lane) for every lane. A block asked to stop leaves the
// canonical blocks still to come, the first included.
template <typename Trade, typename Visit>
__device__ __forceinline__ void for_canonical_blocks(const Trade* __restrict__ trades, int num_trades,
                                                     block_range blocks, Visit visit)
{
  __shared__ Trade current;
  for (std::int64_t b = blocks.begin + blockIdx.x; b < blocks.end; b += gridDim.x) {
    // Also the barrier before the shared trade is staged again for the next block.
    if (__syncthreads_or(threadIdx.x == 0 && stop_asked(blocks.stop))) break;
    stage_trade(trades, num_trades, b, current);
    __syncthreads();
    Trade const t = current;
    visit(t, b - t.first_block, b, static_cast<int>(threadIdx.x));
  }
}

// The moments of the 32 lanes of a warp, summed in a fixed butterfly (the same order on every
// run); lane 0 holds the total.
__device__ __forceinline__ double warp_total(double x)
{
  MCPRICE_UNROLL
  for (int offset = layout::lanes_per_partial / 2; offset > 0; offset /= 2)
    x += __shfl_down_sync(0xffffffffU, x, offset);
  return x;
}

__device__ __forceinline__ moments warp_sum(moments m) { return {warp_total(m.sum), warp_total(m.sum_sq)}; }

__device__ __forceinline__ priced_greeks warp_sum(const priced_greeks& m)
{
  greek_moments const& g = m.greeks;
  return {warp_sum(m.price),
          {warp_total(g.sum_d), warp_total(g.sum_g), warp_total(g.dd), warp_total(g.gg), warp_total(g.pd),
           warp_total(g.pg), warp_total(g.dg)}};
}

__device__ __forceinline__ priced_path_greeks warp_sum(const priced_path_greeks& m)
{
  path_greek_moments const& g = m.greeks;
  return {warp_sum(m.price),
          {warp_sum(g.delta), warp_sum(g.gamma), warp_sum(g.vega), warp_sum(g.theta), warp_sum(g.rho)}};
}

__device__ __forceinline__ priced_basket_greeks warp_sum(const priced_basket_greeks& m)
{
  priced_basket_greeks out;
  out.price = warp_sum(m.price);
  for (int c = 0; c < basket_greek_channels; ++c) out.greeks.m[c] = warp_sum(m.greeks.m[c]);
  return out;
}

// Where a warp's total goes: partials[u].
struct store_moments {
  moments* partials;
  __device__ __forceinline__ void operator()(std::int64_t u, const moments& m) const { partials[u] = m; }
};

// Where a warp's total goes when it carries Greeks (priced_greeks, priced_path_greeks, ...): the
// price's moments to price[u] (the price-only kernels' layout) and the Greek sums to greeks[u].
template <typename GreekSums>
struct store_price_and_greeks {
  moments* price;
  GreekSums* greeks;
  template <typename Priced>
  __device__ __forceinline__ void operator()(std::int64_t u, const Priced& m) const
  {
    price[u] = m.price;
    greeks[u] = m.greeks;
  }
};

// lane_fn(trade, block within the trade, block within the request, lane) -> a lane's sums.
// The work unit is a warp's 32 lanes of a canonical block: unit u is warp u % partials_per_block
// of block blocks.begin + u / partials_per_block, and store(u, the warp's total) keeps it. Each
// warp finds its own trade and walks its own units, so there is no barrier in the loop: a warp
// that finishes early starts its next unit instead of waiting for the block's others. A warp
// asked to stop leaves its units still to come.
template <typename Trade, typename LaneFn, typename Store>
__device__ __forceinline__ void reduce_canonical_units(const Trade* __restrict__ trades, int num_trades,
                                                       block_range blocks, Store store, LaneFn lane_fn)
{
  constexpr int per_block = layout::partials_per_block;
  int const warp = static_cast<int>(threadIdx.x) / layout::lanes_per_partial;
  int const lane_in_warp = static_cast<int>(threadIdx.x) % layout::lanes_per_partial;
  std::int64_t const units = blocks.size() * per_block;
  std::int64_t const stride = std::int64_t{gridDim.x} * (blockDim.x / layout::lanes_per_partial);
  for (std::int64_t u = std::int64_t{blockIdx.x} * (blockDim.x / layout::lanes_per_partial) + warp; u < units;
       u += stride) {
    if (__any_sync(0xffffffffU, stop_asked(blocks.stop))) break;
    std::int64_t const b = blocks.begin + u / per_block;
    int const lane = static_cast<int>(u % per_block) * layout::lanes_per_partial + lane_in_warp;
    Trade const t = trades[trade_of_block(trades, num_trades, b)];
    auto const total = warp_sum(lane_fn(t, b - t.first_block, b, lane));
    if (lane_in_warp == 0) store(u, total);
  }
}

// The price-only form: lane_fn returns moments, written to partials[u].
template <typename Trade, typename LaneFn>
__device__ __forceinline__ void reduce_canonical_blocks(const Trade* __restrict__ trades, int num_trades,
                                                        block_range blocks, moments* __restrict__ partials,
                                                        LaneFn lane_fn)
{
  reduce_canonical_units(trades, num_trades, blocks, store_moments{partials}, lane_fn);
}

}  // namespace mcprice::kernels::detail
