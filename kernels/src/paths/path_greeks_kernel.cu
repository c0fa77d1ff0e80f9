#include "mcprice/kernels/launch/canonical_blocks.cuh"
#include "mcprice/kernels/launch/kernel_module.cuh"
#include "mcprice/kernels/launch/paths.hpp"
#include "mcprice/kernels/launch/stream_choice.cuh"

namespace mcprice::kernels {

MCPRICE_KERNEL_MODULE(kernel_group::greeks)
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

}  // namespace

void launch_asian_greek_blocks(const path_ref<float>& f, block_range blocks, moments* price_partials,
                               path_greek_moments* greek_partials, launch_target at)
{
  if (f.num_trades == 0) return;
  detail::with_normal_stream<rng::device_sobol_stream<2>>(at, [&](auto stream) {
    detail::launch_persistent(path_greek_blocks_kernel<false, typename decltype(stream)::type>,
                              "path_greek_blocks_kernel (asians)", blocks.size(), at.grid_blocks, at.stream, f.trades,
                              f.num_trades, f.tables.grid, f.tables.greek_grid, blocks, price_partials, greek_partials);
  });
}

void launch_scenario_greek_blocks(const path_ref<float>& f, block_range blocks, moments* price_partials,
                                  path_greek_moments* greek_partials, launch_target at)
{
  if (f.num_trades == 0) return;
  detail::with_normal_stream<rng::device_sobol_stream<2>>(at, [&](auto stream) {
    detail::launch_persistent(path_greek_blocks_kernel<true, typename decltype(stream)::type>,
                              "path_greek_blocks_kernel (scenario lanes)", blocks.size(), at.grid_blocks, at.stream,
                              f.trades, f.num_trades, f.tables.grid, f.tables.greek_grid, blocks, price_partials,
                              greek_partials);
  });
}

}  // namespace mcprice::kernels
