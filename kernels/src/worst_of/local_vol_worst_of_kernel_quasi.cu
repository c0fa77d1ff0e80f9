// The float local-vol worst-of routes on Sobol points (--rng sobol): a module of their own
// (local_vol_worst_of_model.cuh).
#include "local_vol_worst_of_model.cuh"
#include "mcprice/kernels/launch/kernel_module.cuh"

namespace mcprice::kernels {

MCPRICE_KERNEL_MODULE_OF(kernel_group::prices, every_kernel_quasi)

using worst_of_routes::quasi_only;

void detail::launch_local_vol_worst_of_blocks_quasi(const local_vol_worst_of_ref& f, block_range blocks,
                                                    moments* partials, launch_target at)
{
  worst_of_routes::launch_blocks<local_vol_worst_of<float>, quasi_only>(f, blocks, partials, at);
}

void detail::launch_local_vol_worst_of_two_phase_quasi(const local_vol_worst_of_ref& f, block_range blocks,
                                                       const two_phase_scratch<float>& s, moments* partials,
                                                       launch_target at)
{
  worst_of_routes::launch_two_phase<local_vol_worst_of<float>, quasi_only>(f, blocks, s, partials, at);
}

void detail::launch_local_vol_worst_of_greek_blocks_quasi(const local_vol_worst_of_ref& f, block_range blocks,
                                                          moments* price_partials,
                                                          basket_greek_moments* greek_partials, launch_target at)
{
  worst_of_routes::launch_greek_blocks<local_vol_worst_of<float>, quasi_only>(f, blocks, price_partials,
                                                                              greek_partials, at);
}

}  // namespace mcprice::kernels
