#pragma once
// Host entry points of the worst-of autocallable kernels on Heston assets (GBM ones may sit
// beside them), float paths: the fused route and the two-phase route. Plain C++ header.
#include "mcprice/kernels/launch/family_ref.hpp"
#include "mcprice/kernels/launch/launch_target.hpp"
#include "mcprice/kernels/models/heston_worst_of_path.hpp"

namespace mcprice::kernels {

// Every trade's Heston step rows (trade.first_step), its assets' v0 and vol of vol, initial
// levels (trade.first_asset) and correlation factors (trade.first_factor).
using heston_worst_of_ref = family_ref<heston_worst_of_trade, heston_worst_of_tables>;

void launch_heston_worst_of_blocks(const heston_worst_of_ref& f, block_range blocks, moments* partials,
                                   launch_target at);

// The two-phase route, with the GBM worst-of's rows a sample (worst_of_rows_per_sample) and its
// fused route's bits.
void launch_heston_worst_of_two_phase(const heston_worst_of_ref& f, block_range blocks,
                                      const two_phase_scratch<float>& s, moments* partials, launch_target at);

}  // namespace mcprice::kernels
