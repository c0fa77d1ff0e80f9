// The local-volatility Greek kernels on Sobol points (--rng sobol): a module of their own
// (local_vol_greek_blocks.cuh).
#include "local_vol_greek_blocks.cuh"
#include "mcprice/kernels/launch/kernel_module.cuh"

namespace mcprice::kernels {

MCPRICE_KERNEL_MODULE_OF(kernel_group::greeks, every_kernel_quasi)

void detail::launch_local_vol_greek_blocks_quasi(const local_vol_ref<float>& f, block_range blocks,
                                                 moments* price_partials, path_greek_moments* greek_partials,
                                                 launch_target at)
{
  detail::with_quasi_stream<rng::device_sobol_stream<2>>(at, [&](auto stream) {
    launch_local_vol_greek_blocks_with<typename decltype(stream)::type>(f, blocks, price_partials, greek_partials, at);
  });
}

}  // namespace mcprice::kernels
