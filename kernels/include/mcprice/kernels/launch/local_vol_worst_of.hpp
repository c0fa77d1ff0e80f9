#pragma once
// Host entry points of the worst-of autocallable kernels on local-vol assets (GBM ones may sit
// beside them), float paths: the fused route, the two-phase route and the Greeks. Plain C++
// header.
#include "mcprice/kernels/greeks/basket_greeks.hpp"
#include "mcprice/kernels/greeks/local_vol_worst_of_greeks.hpp"
#include "mcprice/kernels/launch/family_ref.hpp"
#include "mcprice/kernels/launch/launch_target.hpp"
#include "mcprice/kernels/models/local_vol_worst_of_path.hpp"

namespace mcprice::kernels {

// Every trade's local-vol step rows (trade.first_step), its assets' grids' axes
// (trade.first_grid), the grids' values (the surface table), initial levels and spots
// (trade.first_asset) and correlation factors (trade.first_factor).
using local_vol_worst_of_ref = family_ref<local_vol_worst_of_trade, local_vol_worst_of_tables>;

void launch_local_vol_worst_of_blocks(const local_vol_worst_of_ref& f, block_range blocks, moments* partials,
                                      launch_target at);

// The two-phase route, with the GBM worst-of's rows a sample (worst_of_rows_per_sample) and its
// fused route's bits.
void launch_local_vol_worst_of_two_phase(const local_vol_worst_of_ref& f, block_range blocks,
                                         const two_phase_scratch<float>& s, moments* partials, launch_target at);

// Like launch_local_vol_worst_of_blocks (the same price partials, bit for bit), plus each
// partial's Greek sums in the baskets' channels (trades with t.greeks; the others' stay zero).
void launch_local_vol_worst_of_greek_blocks(const local_vol_worst_of_ref& f, block_range blocks,
                                            moments* price_partials, basket_greek_moments* greek_partials,
                                            launch_target at);

}  // namespace mcprice::kernels
