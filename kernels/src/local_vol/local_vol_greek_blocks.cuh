#pragma once
// The local-volatility Greek kernels, included by local_vol_greeks_kernel.cu (Philox; the entry
// point) and local_vol_greeks_kernel_quasi.cu (Sobol): each a module of its own
// (kernel_modules.hpp).
#include "mcprice/kernels/launch/canonical_blocks.cuh"
#include "mcprice/kernels/launch/local_vol.hpp"
#include "mcprice/kernels/launch/stream_choice.cuh"

namespace mcprice::kernels {
namespace {

template <typename Stream>
struct local_vol_greek_lane_fn {
  const local_vol_step* steps;
  const vol_pair* surface;
  __device__ __forceinline__ priced_path_greeks operator()(const local_vol_trade& t, std::int64_t block_in_trade,
                                                           std::int64_t, int lane) const
  {
    return local_vol_greek_lane<Stream>(t, steps, surface, block_in_trade, lane);
  }
};

template <typename Stream>
__global__ void __launch_bounds__(tuning::european_policy::threads_per_block)
    local_vol_greek_blocks_kernel(const local_vol_trade* __restrict__ trades, int num_trades,
                                  const local_vol_step* __restrict__ steps, const vol_pair* __restrict__ surface,
                                  block_range blocks, moments* __restrict__ price_partials,
                                  path_greek_moments* __restrict__ greek_partials)
{
  detail::reduce_canonical_units(trades, num_trades, blocks,
                                 detail::store_price_and_greeks<path_greek_moments>{price_partials, greek_partials},
                                 local_vol_greek_lane_fn<Stream>{steps, surface});
}

template <typename Stream>
void launch_local_vol_greek_blocks_with(const local_vol_ref<float>& f, block_range blocks, moments* price_partials,
                                        path_greek_moments* greek_partials, launch_target at)
{
  detail::launch_persistent(local_vol_greek_blocks_kernel<Stream>, "local_vol_greek_blocks_kernel", blocks.size(),
                            at.grid_blocks, at.stream, f.trades, f.num_trades, f.tables.steps, f.tables.surface, blocks,
                            price_partials, greek_partials);
}

}  // namespace

namespace detail {
// local_vol_greeks_kernel_quasi.cu.
void launch_local_vol_greek_blocks_quasi(const local_vol_ref<float>& f, block_range blocks, moments* price_partials,
                                         path_greek_moments* greek_partials, launch_target at);
}  // namespace detail

}  // namespace mcprice::kernels
