#pragma once
// Host entry points of the worst-of autocallable kernels on local-vol assets (GBM ones may sit
// beside them): the fused route and the two-phase route in float or double paths, and the Greeks
// in float. Plain C++ header.
#include "mcprice/kernels/greeks/basket_greeks.hpp"
#include "mcprice/kernels/greeks/local_vol_worst_of_greeks.hpp"
#include "mcprice/kernels/launch/family_ref.hpp"
#include "mcprice/kernels/launch/launch_target.hpp"
#include "mcprice/kernels/models/local_vol_worst_of_path.hpp"

namespace mcprice::kernels {

// Every trade's local-vol step rows (trade.first_step), its assets' grids' axes
// (trade.first_grid), the grids' values (the surface table), initial levels and spots
// (trade.first_asset) and correlation factors (trade.first_factor).
template <typename Real>
using basic_local_vol_worst_of_ref =
    family_ref<basic_local_vol_worst_of_trade<Real>, basic_local_vol_worst_of_tables<Real>>;
using local_vol_worst_of_ref = basic_local_vol_worst_of_ref<float>;

// Real: float or double (instantiated for both).
template <typename Real>
void launch_local_vol_worst_of_blocks(const basic_local_vol_worst_of_ref<Real>& f, block_range blocks,
                                      moments* partials, launch_target at);

// The two-phase route, with the GBM worst-of's rows a sample (worst_of_rows_per_sample) and its
// fused route's bits.
template <typename Real>
void launch_local_vol_worst_of_two_phase(const basic_local_vol_worst_of_ref<Real>& f, block_range blocks,
                                         const two_phase_scratch<Real>& s, moments* partials, launch_target at);

// Like launch_local_vol_worst_of_blocks (the same price partials, bit for bit), plus each
// partial's Greek sums in the baskets' channels (trades with t.greeks; the others' stay zero).
void launch_local_vol_worst_of_greek_blocks(const local_vol_worst_of_ref& f, block_range blocks,
                                            moments* price_partials, basket_greek_moments* greek_partials,
                                            launch_target at);

}  // namespace mcprice::kernels
