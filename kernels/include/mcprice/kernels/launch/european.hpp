#pragma once
// Host entry points of the European GBM kernels: the fused route, the two-phase route and the
// Greek channels. Plain C++ header: callers need no nvcc.
#include "mcprice/kernels/greeks/european_greeks.hpp"
#include "mcprice/kernels/launch/family_ref.hpp"
#include "mcprice/kernels/launch/launch_target.hpp"
#include "mcprice/kernels/models/european_gbm.hpp"

#include <cstdint>

namespace mcprice::kernels {

using european_ref = family_ref<european_gbm_trade>;

// The fused route: the moments of the request's canonical blocks `blocks`, block b's written to
// partials[(b - blocks.begin) x layout::partials_per_block, ...).
void launch_european_blocks(const european_ref& f, block_range blocks, moments* partials, launch_target at);

// The two-phase route for the same trades: a path kernel stores each sample's observations in
// path scratch, a payoff kernel turns them into per-sample values in payoff scratch, and a block
// kernel forms the canonical-block moments from those. Same random numbers, same float
// arithmetic and same sums as the fused route, so the results are bit-identical; the route
// exists because early exercise and shared-path evaluation need paths in memory.
// Floats of path scratch and of payoff scratch per canonical block:
inline constexpr std::int64_t path_floats_per_block =
    layout::samples_per_block(european_normals_per_sample) * max_observations_per_sample;
inline constexpr std::int64_t payoff_floats_per_block = layout::samples_per_block(european_normals_per_sample);
// s.paths holds path_floats_per_block a block of `blocks`, s.payoffs payoff_floats_per_block.
void launch_european_two_phase(const european_ref& f, block_range blocks, const two_phase_scratch<float>& s,
                               moments* partials, launch_target at);

// The price and Greek channels together (european_greeks.hpp), each block's in its own partials.
void launch_european_greek_blocks(const european_ref& f, block_range blocks, moments* price_partials,
                                  greek_moments* greek_partials, launch_target at);

}  // namespace mcprice::kernels
