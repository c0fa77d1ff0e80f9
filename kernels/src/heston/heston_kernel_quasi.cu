// The float Heston kernels on Sobol points (--rng sobol): a module of their own (heston_blocks.cuh).
#include "heston_blocks.cuh"
#include "mcprice/kernels/launch/kernel_module.cuh"

namespace mcprice::kernels {

MCPRICE_KERNEL_MODULE_OF(kernel_group::prices, every_kernel_quasi)

void detail::launch_heston_blocks_quasi(const heston_ref<float>& f, block_range blocks, moments* partials,
                                        launch_target at)
{
  detail::with_quasi_stream<rng::device_sobol_stream<3, float>>(at, [&](auto stream) {
    launch_heston_blocks_with<float, typename decltype(stream)::type>(f, blocks, partials, at);
  });
}

}  // namespace mcprice::kernels
