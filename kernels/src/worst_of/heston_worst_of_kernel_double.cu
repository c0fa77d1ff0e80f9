// The double Heston worst-of routes (--precision double), Philox and Sobol: a module of their own
// (heston_worst_of_model.cuh). Double takes the mixed walk for every trade, as its family does.
#include "heston_worst_of_model.cuh"
#include "mcprice/kernels/launch/kernel_module.cuh"

namespace mcprice::kernels {

MCPRICE_KERNEL_MODULE_OF(kernel_group::prices, every_kernel_double)

void launch_heston_worst_of_blocks(const basic_heston_worst_of_ref<double>& f, block_range blocks, moments* partials,
                                   launch_target at)
{
  worst_of_routes::launch_blocks<heston_worst_of<true, double>>(f, blocks, partials, at);
}

void launch_heston_worst_of_two_phase(const basic_heston_worst_of_ref<double>& f, block_range blocks,
                                      const two_phase_scratch<double>& s, moments* partials, launch_target at)
{
  worst_of_routes::launch_two_phase<heston_worst_of<true, double>>(f, blocks, s, partials, at);
}

}  // namespace mcprice::kernels
