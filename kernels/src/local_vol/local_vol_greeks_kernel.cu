#include "local_vol_greek_blocks.cuh"
#include "mcprice/kernels/launch/kernel_module.cuh"

namespace mcprice::kernels {

MCPRICE_KERNEL_MODULE(kernel_group::greeks)

void launch_local_vol_greek_blocks(const local_vol_ref<float>& f, block_range blocks, moments* price_partials,
                                   path_greek_moments* greek_partials, launch_target at)
{
  if (f.num_trades == 0) return;
  if (at.sobol_directions != nullptr) {
    detail::launch_local_vol_greek_blocks_quasi(f, blocks, price_partials, greek_partials, at);
  } else {
    launch_local_vol_greek_blocks_with<rng::device_normal_stream>(f, blocks, price_partials, greek_partials, at);
  }
}

}  // namespace mcprice::kernels
