// The double Heston kernels (--precision double), Philox and Sobol: a module of their own
// (heston_blocks.cuh).
#include "heston_blocks.cuh"
#include "mcprice/kernels/launch/kernel_module.cuh"

namespace mcprice::kernels {

MCPRICE_KERNEL_MODULE_OF(kernel_group::prices, every_kernel_double)

void detail::launch_heston_blocks_double(const heston_ref<double>& f, block_range blocks, moments* partials,
                                         launch_target at)
{
  detail::with_normal_stream<rng::device_sobol_stream<3, double>>(at, [&](auto stream) {
    launch_heston_blocks_with<double, typename decltype(stream)::type>(f, blocks, partials, at);
  });
}

}  // namespace mcprice::kernels
