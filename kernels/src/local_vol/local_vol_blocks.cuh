#pragma once
// The local-volatility fused kernels, included by the sources that compile them:
// local_vol_kernel.cu (float, Philox; the entry point), local_vol_kernel_quasi.cu (float, Sobol)
// and local_vol_kernel_double.cu (--precision double): each a module of its own
// (kernel_modules.hpp).
#include "mcprice/kernels/launch/canonical_blocks.cuh"
#include "mcprice/kernels/launch/local_vol.hpp"
#include "mcprice/kernels/launch/stream_choice.cuh"

#include <type_traits>

namespace mcprice::kernels {
namespace {

using policy = tuning::european_policy;

// Float kernels keep 3 blocks of 256 an SM: the autocallable's and cliquet's branches took the
// kernel from 80 to 96 registers (2 blocks) and every local-vol product 30-38% slower with it
// (docs/benchmarks.md, 2026-12-03); the cap spills only inside those branches. A request without
// either gets a kernel without their branches (Structured = false), which inlines the very same
// step and payoff code: the same bits. Double, which exists for validation, keeps its registers.
template <typename Real>
inline constexpr int local_vol_min_blocks = std::is_same_v<Real, float> ? 3 : 1;

template <typename Real, typename Stream, bool Structured>
struct local_vol_fused_lane {
  const basic_local_vol_step<Real>* steps;
  const basic_vol_pair<Real>* surface;
  __device__ __forceinline__ moments operator()(const basic_local_vol_trade<Real>& t, std::int64_t block_in_trade,
                                                std::int64_t, int lane) const
  {
    return local_vol_lane<Stream, Structured>(t, steps, surface, block_in_trade, lane);
  }
};

template <typename Real, typename Stream, bool Structured>
__global__ void __launch_bounds__(policy::threads_per_block, local_vol_min_blocks<Real>)
    local_vol_blocks_kernel(const basic_local_vol_trade<Real>* __restrict__ trades, int num_trades,
                            const basic_local_vol_step<Real>* __restrict__ steps,
                            const basic_vol_pair<Real>* __restrict__ surface, block_range blocks,
                            moments* __restrict__ block_moments)
{
  detail::reduce_canonical_blocks(trades, num_trades, blocks, block_moments,
                                  local_vol_fused_lane<Real, Stream, Structured>{steps, surface});
}

template <typename Real, typename Stream>
void launch_local_vol_blocks_with(const local_vol_ref<Real>& f, block_range blocks, moments* partials,
                                  launch_target at)
{
  auto const launch = [&](auto kernel, const char* name) {
    detail::launch_persistent(kernel, name, blocks.size(), at.grid_blocks, at.stream, f.trades, f.num_trades,
                              f.tables.steps, f.tables.surface, blocks, partials);
  };
  if (f.tables.structured) launch(local_vol_blocks_kernel<Real, Stream, true>, "local_vol_blocks_kernel");
  else launch(local_vol_blocks_kernel<Real, Stream, false>, "local_vol_blocks_kernel<plain>");
}

}  // namespace

namespace detail {
// local_vol_kernel_quasi.cu and local_vol_kernel_double.cu.
void launch_local_vol_blocks_quasi(const local_vol_ref<float>& f, block_range blocks, moments* partials,
                                   launch_target at);
void launch_local_vol_blocks_double(const local_vol_ref<double>& f, block_range blocks, moments* partials,
                                    launch_target at);
}  // namespace detail

}  // namespace mcprice::kernels
