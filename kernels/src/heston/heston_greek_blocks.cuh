#pragma once
// The Heston Greek kernels, included by heston_greeks_kernel.cu (Philox; the entry point) and
// heston_greeks_kernel_quasi.cu (Sobol): each a module of its own (kernel_modules.hpp).
#include "mcprice/kernels/launch/canonical_blocks.cuh"
#include "mcprice/kernels/launch/heston.hpp"
#include "mcprice/kernels/launch/stream_choice.cuh"

namespace mcprice::kernels {
namespace {

template <typename Stream>
struct heston_greek_lane_fn {
  const heston_step* steps;
  __device__ __forceinline__ priced_path_greeks operator()(const heston_trade& t, std::int64_t block_in_trade,
                                                           std::int64_t, int lane) const
  {
    return heston_greek_lane<Stream>(t, steps, block_in_trade, lane);
  }
};

template <typename Stream>
__global__ void __launch_bounds__(tuning::european_policy::threads_per_block)
    heston_greek_blocks_kernel(const heston_trade* __restrict__ trades, int num_trades,
                               const heston_step* __restrict__ steps, block_range blocks,
                               moments* __restrict__ price_partials, path_greek_moments* __restrict__ greek_partials)
{
  detail::reduce_canonical_units(trades, num_trades, blocks,
                                 detail::store_price_and_greeks<path_greek_moments>{price_partials, greek_partials},
                                 heston_greek_lane_fn<Stream>{steps});
}

template <typename Stream>
void launch_heston_greek_blocks_with(const heston_ref<float>& f, block_range blocks, moments* price_partials,
                                     path_greek_moments* greek_partials, launch_target at)
{
  detail::launch_persistent(heston_greek_blocks_kernel<Stream>, "heston_greek_blocks_kernel", blocks.size(),
                            at.grid_blocks, at.stream, f.trades, f.num_trades, f.tables.steps, blocks, price_partials,
                            greek_partials);
}

}  // namespace

namespace detail {
// heston_greeks_kernel_quasi.cu.
void launch_heston_greek_blocks_quasi(const heston_ref<float>& f, block_range blocks, moments* price_partials,
                                      path_greek_moments* greek_partials, launch_target at);
}  // namespace detail

}  // namespace mcprice::kernels
