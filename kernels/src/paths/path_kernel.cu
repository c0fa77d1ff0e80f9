#include "mcprice/kernels/launch/kernel_module.cuh"
#include "path_blocks.cuh"

#include <type_traits>

namespace mcprice::kernels {

MCPRICE_KERNEL_MODULE(kernel_group::prices)

template <typename Real>
void launch_path_blocks(const path_ref<Real>& f, block_range blocks, moments* partials, launch_target at)
{
  if (f.num_trades == 0) return;
  if constexpr (std::is_same_v<Real, double>) {
    detail::launch_path_blocks_double(f, blocks, partials, at);
  } else if (at.sobol_directions != nullptr) {
    detail::launch_path_blocks_quasi(f, blocks, partials, at);
  } else {
    launch_path_blocks_with<float, rng::device_normal_stream>(f, blocks, partials, at);
  }
}

template void launch_path_blocks(const path_ref<float>&, block_range, moments*, launch_target);
template void launch_path_blocks(const path_ref<double>&, block_range, moments*, launch_target);

}  // namespace mcprice::kernels
