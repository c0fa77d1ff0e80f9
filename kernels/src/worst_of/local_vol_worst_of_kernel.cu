#include "local_vol_worst_of_model.cuh"
#include "mcprice/kernels/launch/kernel_module.cuh"

#include <type_traits>

namespace mcprice::kernels {

MCPRICE_KERNEL_MODULE(kernel_group::prices)

using worst_of_routes::philox_only;

template <typename Real>
void launch_local_vol_worst_of_blocks(const basic_local_vol_worst_of_ref<Real>& f, block_range blocks,
                                      moments* partials, launch_target at)
{
  if constexpr (std::is_same_v<Real, double>) {
    detail::launch_local_vol_worst_of_blocks_double(f, blocks, partials, at);
  } else if (at.sobol_directions != nullptr) {
    detail::launch_local_vol_worst_of_blocks_quasi(f, blocks, partials, at);
  } else {
    worst_of_routes::launch_blocks<local_vol_worst_of<float>, philox_only>(f, blocks, partials, at);
  }
}

template <typename Real>
void launch_local_vol_worst_of_two_phase(const basic_local_vol_worst_of_ref<Real>& f, block_range blocks,
                                         const two_phase_scratch<Real>& s, moments* partials, launch_target at)
{
  if constexpr (std::is_same_v<Real, double>) {
    detail::launch_local_vol_worst_of_two_phase_double(f, blocks, s, partials, at);
  } else if (at.sobol_directions != nullptr) {
    detail::launch_local_vol_worst_of_two_phase_quasi(f, blocks, s, partials, at);
  } else {
    worst_of_routes::launch_two_phase<local_vol_worst_of<float>, philox_only>(f, blocks, s, partials, at);
  }
}

template void launch_local_vol_worst_of_blocks(const local_vol_worst_of_ref&, block_range, moments*, launch_target);
template void launch_local_vol_worst_of_blocks(const basic_local_vol_worst_of_ref<double>&, block_range, moments*,
                                               launch_target);
template void launch_local_vol_worst_of_two_phase(const local_vol_worst_of_ref&, block_range,
                                                  const two_phase_scratch<float>&, moments*, launch_target);
template void launch_local_vol_worst_of_two_phase(const basic_local_vol_worst_of_ref<double>&, block_range,
                                                  const two_phase_scratch<double>&, moments*, launch_target);

void launch_local_vol_worst_of_greek_blocks(const local_vol_worst_of_ref& f, block_range blocks,
                                            moments* price_partials, basket_greek_moments* greek_partials,
                                            launch_target at)
{
  if (at.sobol_directions != nullptr) {
    detail::launch_local_vol_worst_of_greek_blocks_quasi(f, blocks, price_partials, greek_partials, at);
  } else {
    worst_of_routes::launch_greek_blocks<local_vol_worst_of<float>, philox_only>(f, blocks, price_partials,
                                                                                 greek_partials, at);
  }
}

}  // namespace mcprice::kernels
