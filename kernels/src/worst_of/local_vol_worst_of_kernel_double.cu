// The double local-vol worst-of routes (--precision double), Philox and Sobol: a module of their
// own (local_vol_worst_of_model.cuh).
#include "local_vol_worst_of_model.cuh"
#include "mcprice/kernels/launch/kernel_module.cuh"

namespace mcprice::kernels {

MCPRICE_KERNEL_MODULE_OF(kernel_group::prices, every_kernel_double)

void detail::launch_local_vol_worst_of_blocks_double(const basic_local_vol_worst_of_ref<double>& f,
                                                     block_range blocks, moments* partials, launch_target at)
{
  worst_of_routes::launch_blocks<local_vol_worst_of<double>>(f, blocks, partials, at);
}

void detail::launch_local_vol_worst_of_two_phase_double(const basic_local_vol_worst_of_ref<double>& f,
                                                        block_range blocks, const two_phase_scratch<double>& s,
                                                        moments* partials, launch_target at)
{
  worst_of_routes::launch_two_phase<local_vol_worst_of<double>>(f, blocks, s, partials, at);
}

}  // namespace mcprice::kernels
