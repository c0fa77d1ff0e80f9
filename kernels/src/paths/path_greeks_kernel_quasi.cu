// The path-dependent GBM Greek kernels on Sobol points (--rng sobol): a module of their own
// (path_greek_blocks.cuh).
#include "mcprice/kernels/launch/kernel_module.cuh"
#include "path_greek_blocks.cuh"

namespace mcprice::kernels {

MCPRICE_KERNEL_MODULE_OF(kernel_group::greeks, every_kernel_quasi)

void detail::launch_path_greek_blocks_quasi(bool scenario_lanes, const path_ref<float>& f, block_range blocks,
                                            moments* price_partials, path_greek_moments* greek_partials,
                                            launch_target at)
{
  detail::with_quasi_stream<rng::device_sobol_stream<2>>(at, [&](auto stream) {
    using Stream = typename decltype(stream)::type;
    if (scenario_lanes) launch_path_greek_blocks_with<true, Stream>(f, blocks, price_partials, greek_partials, at);
    else launch_path_greek_blocks_with<false, Stream>(f, blocks, price_partials, greek_partials, at);
  });
}

}  // namespace mcprice::kernels
