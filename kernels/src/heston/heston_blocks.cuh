#pragma once
// The Heston fused kernels, included by the sources that compile them: heston_kernel.cu (float,
// Philox; the entry point), heston_kernel_quasi.cu (float, Sobol) and heston_kernel_double.cu
// (--precision double). Each source is a module of its own, so that an engine loads only the
// variants its generator and precision launch (kernel_modules.hpp).
#include "mcprice/kernels/launch/canonical_blocks.cuh"
#include "mcprice/kernels/launch/heston.hpp"
#include "mcprice/kernels/launch/stream_choice.cuh"
#include "mcprice/kernels/models/heston_sample.hpp"

#include <algorithm>
#include <limits>
#include <type_traits>

namespace mcprice::kernels {
namespace {

// A kernel's registers are those of its largest variant: a request of Heston Europeans only
// (the common case, and the benchmark's) gets a kernel without the path products' state, capped
// at 64 registers for four blocks an SM where the kernel for every product takes 80 at three
// (tuning.hpp has the measurements). It inlines the very same step and payoff code, so a
// trade's bits do not depend on which of the two kernels priced it (GPU test: a book of every
// family). Double paths (--precision double, for validation) are uncapped: their state takes
// twice the registers, and they are not tuned.
template <typename Real, bool EuropeansOnly>
using heston_kernel_policy =
    std::conditional_t<!std::is_same_v<Real, float>, tuning::block_policy<1>,
                       std::conditional_t<EuropeansOnly, tuning::heston_european_policy, tuning::heston_policy>>;

template <typename Real, bool EuropeansOnly, typename Stream>
struct heston_fused_lane {
  const basic_heston_step<Real>* steps;
  __device__ __forceinline__ moments operator()(const basic_heston_trade<Real>& t, std::int64_t block_in_trade,
                                                std::int64_t, int lane) const
  {
    return heston_lane<Stream, EuropeansOnly>(t, steps, block_in_trade, lane);
  }
};

template <typename Real, bool EuropeansOnly, typename Stream>
__global__ void __launch_bounds__(heston_kernel_policy<Real, EuropeansOnly>::threads_per_block,
                                  heston_kernel_policy<Real, EuropeansOnly>::min_blocks_per_sm)
    heston_blocks_kernel(const basic_heston_trade<Real>* __restrict__ trades, int num_trades,
                         const basic_heston_step<Real>* __restrict__ steps, block_range blocks,
                         moments* __restrict__ block_moments)
{
  detail::reduce_canonical_blocks(trades, num_trades, blocks, block_moments,
                                  heston_fused_lane<Real, EuropeansOnly, Stream>{steps});
}

// One block per canonical block unless a grid is requested: a canonical block here is a whole
// path per thread (milliseconds), and the jobs of several streams run side by side. With a
// persistent grid each job held its resident blocks for two turns, and the last job's second
// turn ran with most of the GPU idle (0.4 ms of a 2.5 ms call on an H200, docs/benchmarks.md);
// queued blocks let the hardware pack every job's blocks into the waves.
inline int queued_grid(std::int64_t work_blocks, int requested)
{
  if (requested > 0) return requested;
  return static_cast<int>(std::min<std::int64_t>(work_blocks, std::numeric_limits<int>::max()));
}

template <typename Real, typename Stream>
void launch_heston_blocks_with(const heston_ref<Real>& f, block_range blocks, moments* partials, launch_target at)
{
  int const grid = queued_grid(blocks.size(), at.grid_blocks);
  if (f.tables.europeans_only) {
    detail::launch_persistent(heston_blocks_kernel<Real, true, Stream>, "heston_blocks_kernel<europeans>",
                              blocks.size(), grid, at.stream, f.trades, f.num_trades, f.tables.steps, blocks, partials);
  } else {
    detail::launch_persistent(heston_blocks_kernel<Real, false, Stream>, "heston_blocks_kernel", blocks.size(), grid,
                              at.stream, f.trades, f.num_trades, f.tables.steps, blocks, partials);
  }
}

}  // namespace

namespace detail {
// heston_kernel_quasi.cu and heston_kernel_double.cu.
void launch_heston_blocks_quasi(const heston_ref<float>& f, block_range blocks, moments* partials, launch_target at);
void launch_heston_blocks_double(const heston_ref<double>& f, block_range blocks, moments* partials,
                                 launch_target at);
}  // namespace detail

}  // namespace mcprice::kernels
