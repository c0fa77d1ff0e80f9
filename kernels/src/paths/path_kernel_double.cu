// The double path-dependent GBM kernels (--precision double), Philox and Sobol: a module of their
// own (path_blocks.cuh).
#include "mcprice/kernels/launch/kernel_module.cuh"
#include "path_blocks.cuh"

namespace mcprice::kernels {

MCPRICE_KERNEL_MODULE_OF(kernel_group::prices, every_kernel_double)

void detail::launch_path_blocks_double(const path_ref<double>& f, block_range blocks, moments* partials,
                                       launch_target at)
{
  detail::with_normal_stream<rng::device_sobol_stream<2, double>>(at, [&](auto stream) {
    launch_path_blocks_with<double, typename decltype(stream)::type>(f, blocks, partials, at);
  });
}

}  // namespace mcprice::kernels
