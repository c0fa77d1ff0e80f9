#include "heston_worst_of_model.cuh"
#include "mcprice/kernels/launch/kernel_module.cuh"

namespace mcprice::kernels {

MCPRICE_KERNEL_MODULE(kernel_group::prices)

using worst_of_routes::philox_only;

void launch_heston_worst_of_blocks(const heston_worst_of_ref& f, bool local_vol, block_range blocks, moments* partials,
                                   launch_target at)
{
  if (at.sobol_directions != nullptr) detail::launch_heston_worst_of_blocks_quasi(f, local_vol, blocks, partials, at);
  else if (local_vol) worst_of_routes::launch_blocks<heston_worst_of<true>, philox_only>(f, blocks, partials, at);
  else worst_of_routes::launch_blocks<heston_worst_of<false>, philox_only>(f, blocks, partials, at);
}

void launch_heston_worst_of_two_phase(const heston_worst_of_ref& f, bool local_vol, block_range blocks,
                                      const two_phase_scratch<float>& s, moments* partials, launch_target at)
{
  if (at.sobol_directions != nullptr) {
    detail::launch_heston_worst_of_two_phase_quasi(f, local_vol, blocks, s, partials, at);
  } else if (local_vol) {
    worst_of_routes::launch_two_phase<heston_worst_of<true>, philox_only>(f, blocks, s, partials, at);
  } else {
    worst_of_routes::launch_two_phase<heston_worst_of<false>, philox_only>(f, blocks, s, partials, at);
  }
}

void launch_heston_worst_of_greek_blocks(const heston_worst_of_ref& f, bool local_vol, block_range blocks,
                                         moments* price_partials, basket_greek_moments* greek_partials,
                                         launch_target at)
{
  if (at.sobol_directions != nullptr) {
    detail::launch_heston_worst_of_greek_blocks_quasi(f, local_vol, blocks, price_partials, greek_partials, at);
  } else if (local_vol) {
    worst_of_routes::launch_greek_blocks<heston_worst_of<true>, philox_only>(f, blocks, price_partials,
                                                                             greek_partials, at);
  } else {
    worst_of_routes::launch_greek_blocks<heston_worst_of<false>, philox_only>(f, blocks, price_partials,
                                                                              greek_partials, at);
  }
}

}  // namespace mcprice::kernels
