// Early exercise's pricing and Greek-combination kernels on Sobol points (--rng sobol): a module
// of their own (exercise_blocks.cuh).
#include "exercise_blocks.cuh"
#include "mcprice/kernels/launch/kernel_module.cuh"

namespace mcprice::kernels {

MCPRICE_KERNEL_MODULE_OF(kernel_group::exercise, every_kernel_quasi)

void detail::launch_exercise_price_blocks_quasi(const exercise_ref& f, block_range blocks, moments* partials,
                                                launch_target at)
{
  detail::with_quasi_stream<exercise_sobol_stream>(at, [&](auto stream) {
    launch_exercise_price_blocks_with<typename decltype(stream)::type>(f, blocks, partials, at);
  });
}

void detail::launch_exercise_combinations_quasi(const combination_ref& f, block_range blocks, moments* partials,
                                                std::uint32_t asset_counts, unsigned long long* unit_counters,
                                                launch_target at)
{
  detail::with_quasi_stream<exercise_sobol_stream>(at, [&](auto stream) {
    launch_exercise_combinations_with<typename decltype(stream)::type>(f, blocks, partials, asset_counts,
                                                                       unit_counters, at);
  });
}

}  // namespace mcprice::kernels
