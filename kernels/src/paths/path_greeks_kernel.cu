#include "mcprice/kernels/launch/kernel_module.cuh"
#include "path_greek_blocks.cuh"

namespace mcprice::kernels {

MCPRICE_KERNEL_MODULE(kernel_group::greeks)

void launch_asian_greek_blocks(const path_ref<float>& f, block_range blocks, moments* price_partials,
                               path_greek_moments* greek_partials, launch_target at)
{
  if (f.num_trades == 0) return;
  if (at.sobol_directions != nullptr) {
    detail::launch_path_greek_blocks_quasi(false, f, blocks, price_partials, greek_partials, at);
  } else {
    launch_path_greek_blocks_with<false, rng::device_normal_stream>(f, blocks, price_partials, greek_partials, at);
  }
}

void launch_scenario_greek_blocks(const path_ref<float>& f, block_range blocks, moments* price_partials,
                                  path_greek_moments* greek_partials, launch_target at)
{
  if (f.num_trades == 0) return;
  if (at.sobol_directions != nullptr) {
    detail::launch_path_greek_blocks_quasi(true, f, blocks, price_partials, greek_partials, at);
  } else {
    launch_path_greek_blocks_with<true, rng::device_normal_stream>(f, blocks, price_partials, greek_partials, at);
  }
}

}  // namespace mcprice::kernels
