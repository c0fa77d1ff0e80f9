#pragma once
// Host entry points of the worst-of autocallable kernels on Heston and jump assets (GBM ones may
// sit beside them): the fused route, the two-phase route and the Greeks in float paths, and the
// fused and two-phase routes in double. Plain C++ header.
#include "mcprice/kernels/greeks/basket_greeks.hpp"
#include "mcprice/kernels/greeks/heston_worst_of_greeks.hpp"
#include "mcprice/kernels/launch/family_ref.hpp"
#include "mcprice/kernels/launch/launch_target.hpp"
#include "mcprice/kernels/models/heston_worst_of_path.hpp"

namespace mcprice::kernels {

// Every trade's Heston step rows (trade.first_step, with its jump counts and Greek rows beside
// them), its assets' v0, vol of vol and jump laws, initial levels and spots (trade.first_asset)
// and correlation factors (trade.first_factor).
template <typename Real>
using basic_heston_worst_of_ref = family_ref<basic_heston_worst_of_trade<Real>, basic_heston_worst_of_tables<Real>>;
using heston_worst_of_ref = basic_heston_worst_of_ref<float>;

// local_vol: the trades may have local-vol assets (the mixed worst-ofs' kernels, which step them
// on their grids); without, kernels with no local-vol step (faster). A request's trades take one
// or the other: the engine keeps them in two families.
void launch_heston_worst_of_blocks(const heston_worst_of_ref& f, bool local_vol, block_range blocks,
                                   moments* partials, launch_target at);

// The two-phase route, with the GBM worst-of's rows a sample (worst_of_rows_per_sample) and its
// fused route's bits.
void launch_heston_worst_of_two_phase(const heston_worst_of_ref& f, bool local_vol, block_range blocks,
                                      const two_phase_scratch<float>& s, moments* partials, launch_target at);

// Double paths: every trade on the mixed walk (the local-vol step compiled in), as the double
// family keeps them.
void launch_heston_worst_of_blocks(const basic_heston_worst_of_ref<double>& f, block_range blocks, moments* partials,
                                   launch_target at);
void launch_heston_worst_of_two_phase(const basic_heston_worst_of_ref<double>& f, block_range blocks,
                                      const two_phase_scratch<double>& s, moments* partials, launch_target at);

// Like launch_heston_worst_of_blocks (the same price partials, bit for bit), plus each partial's
// Greek sums in the baskets' channels (trades with t.greeks; the others' stay zero).
void launch_heston_worst_of_greek_blocks(const heston_worst_of_ref& f, bool local_vol, block_range blocks,
                                         moments* price_partials, basket_greek_moments* greek_partials,
                                         launch_target at);

}  // namespace mcprice::kernels
