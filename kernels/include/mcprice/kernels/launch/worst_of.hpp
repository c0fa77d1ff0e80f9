#pragma once
// Host entry points of the worst-of autocallable kernels (several correlated GBM assets): the
// fused route and the two-phase route. Real is the path precision: float, or double under
// --precision double. Plain C++ header.
#include "mcprice/kernels/greeks/worst_of_greeks.hpp"
#include "mcprice/kernels/launch/family_ref.hpp"
#include "mcprice/kernels/launch/launch_target.hpp"
#include "mcprice/kernels/models/worst_of_path.hpp"

namespace mcprice::kernels {

// Every trade's step rows (trade.first_step: steps x assets, then its observation rows), its
// assets' ln(L_i / S_i(0)) and spots (trade.first_asset) and its correlation factor
// (trade.first_factor); with Greeks, the Greek rows parallel to the step rows.
template <typename Real>
struct worst_of_tables {
  const basic_path_step<Real>* grid{nullptr};
  const basic_path_greek_step<Real>* greek_grid{nullptr};
  const Real* log_initials{nullptr};
  const Real* spots{nullptr};
  const Real* factors{nullptr};
};

template <typename Real>
using worst_of_ref = family_ref<basic_worst_of_trade<Real>, worst_of_tables<Real>>;

// The fused route: the moments of the request's canonical blocks `blocks`, block b's written to
// partials[(b - blocks.begin) x layout::partials_per_block, ...).
template <typename Real>
void launch_worst_of_blocks(const worst_of_ref<Real>& f, block_range blocks, moments* partials, launch_target at);

// Rows of path scratch a sample needs: each side's worst log performance and its step's variance
// after every step.
template <typename Real>
inline int worst_of_rows_per_sample(const basic_worst_of_trade<Real>& t)
{
  return 2 * t.steps * (t.antithetic ? 2 : 1);
}

// The two-phase route: an observation kernel stores every step's worst performance and variance
// (all steps: a called path's later ones are stored and ignored); a payoff kernel replays them
// through the fused route's path state, to the same bits.
template <typename Real>
void launch_worst_of_two_phase(const worst_of_ref<Real>& f, block_range blocks, const two_phase_scratch<Real>& s,
                               moments* partials, launch_target at);

// Like launch_worst_of_blocks (the same price partials, bit for bit), plus each partial's Greek
// sums in the baskets' channels (trades with t.greeks; the others' stay zero).
void launch_worst_of_greek_blocks(const worst_of_ref<float>& f, block_range blocks, moments* price_partials,
                                  basket_greek_moments* greek_partials, launch_target at);

}  // namespace mcprice::kernels
