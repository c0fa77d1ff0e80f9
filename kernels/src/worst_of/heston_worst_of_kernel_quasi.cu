// The float Heston worst-of routes on Sobol points (--rng sobol): a module of their own
// (heston_worst_of_model.cuh).
#include "heston_worst_of_model.cuh"
#include "mcprice/kernels/launch/kernel_module.cuh"

namespace mcprice::kernels {

MCPRICE_KERNEL_MODULE_OF(kernel_group::prices, every_kernel_quasi)

using worst_of_routes::quasi_only;

void detail::launch_heston_worst_of_blocks_quasi(const heston_worst_of_ref& f, bool local_vol, block_range blocks,
                                                 moments* partials, launch_target at)
{
  if (local_vol) worst_of_routes::launch_blocks<heston_worst_of<true>, quasi_only>(f, blocks, partials, at);
  else worst_of_routes::launch_blocks<heston_worst_of<false>, quasi_only>(f, blocks, partials, at);
}

void detail::launch_heston_worst_of_two_phase_quasi(const heston_worst_of_ref& f, bool local_vol, block_range blocks,
                                                    const two_phase_scratch<float>& s, moments* partials,
                                                    launch_target at)
{
  if (local_vol) worst_of_routes::launch_two_phase<heston_worst_of<true>, quasi_only>(f, blocks, s, partials, at);
  else worst_of_routes::launch_two_phase<heston_worst_of<false>, quasi_only>(f, blocks, s, partials, at);
}

void detail::launch_heston_worst_of_greek_blocks_quasi(const heston_worst_of_ref& f, bool local_vol,
                                                       block_range blocks, moments* price_partials,
                                                       basket_greek_moments* greek_partials, launch_target at)
{
  if (local_vol) {
    worst_of_routes::launch_greek_blocks<heston_worst_of<true>, quasi_only>(f, blocks, price_partials, greek_partials,
                                                                            at);
  } else {
    worst_of_routes::launch_greek_blocks<heston_worst_of<false>, quasi_only>(f, blocks, price_partials,
                                                                             greek_partials, at);
  }
}

}  // namespace mcprice::kernels
