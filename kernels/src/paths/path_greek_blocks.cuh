#pragma once
// The path-dependent GBM Greek kernels, included by path_greeks_kernel.cu (Philox; the entry
// points) and path_greeks_kernel_quasi.cu (Sobol): each a module of its own (kernel_modules.hpp).
#include "mcprice/kernels/launch/canonical_blocks.cuh"
#include "mcprice/kernels/launch/paths.hpp"
#include "mcprice/kernels/launch/stream_choice.cuh"

namespace mcprice::kernels {
namespace {

template <bool ScenarioLanes, typename Stream>
struct path_greek_lane_fn {
  const path_step* grid;
  const path_greek_step* greek_grid;
  __device__ __forceinline__ priced_path_greeks operator()(const path_gbm_trade& t, std::int64_t block_in_trade,
                                                           std::int64_t, int lane) const
  {
    if constexpr (ScenarioLanes) return scenario_greek_lane<Stream>(t, grid, greek_grid, block_in_trade, lane);
    else return asian_greek_lane<Stream>(t, grid, greek_grid, block_in_trade, lane);
  }
};

template <bool ScenarioLanes, typename Stream>
__global__ void __launch_bounds__(tuning::european_policy::threads_per_block)
    path_greek_blocks_kernel(const path_gbm_trade* __restrict__ trades, int num_trades,
                             const path_step* __restrict__ grid, const path_greek_step* __restrict__ greek_grid,
                             block_range blocks, moments* __restrict__ price_partials,
                             path_greek_moments* __restrict__ greek_partials)
{
  detail::reduce_canonical_units(trades, num_trades, blocks,
                                 detail::store_price_and_greeks<path_greek_moments>{price_partials, greek_partials},
                                 path_greek_lane_fn<ScenarioLanes, Stream>{grid, greek_grid});
}

// ScenarioLanes: the scenario lanes (every path product but Asians), else the Asians' lanes.
template <bool ScenarioLanes, typename Stream>
void launch_path_greek_blocks_with(const path_ref<float>& f, block_range blocks, moments* price_partials,
                                   path_greek_moments* greek_partials, launch_target at)
{
  detail::launch_persistent(path_greek_blocks_kernel<ScenarioLanes, Stream>,
                            ScenarioLanes ? "path_greek_blocks_kernel (scenario lanes)"
                                          : "path_greek_blocks_kernel (asians)",
                            blocks.size(), at.grid_blocks, at.stream, f.trades, f.num_trades, f.tables.grid,
                            f.tables.greek_grid, blocks, price_partials, greek_partials);
}

}  // namespace

namespace detail {
// path_greeks_kernel_quasi.cu.
void launch_path_greek_blocks_quasi(bool scenario_lanes, const path_ref<float>& f, block_range blocks,
                                    moments* price_partials, path_greek_moments* greek_partials, launch_target at);
}  // namespace detail

}  // namespace mcprice::kernels
