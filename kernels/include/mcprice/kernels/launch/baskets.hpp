#pragma once
// Host entry points of the multi-asset kernels (baskets, best-of, worst-of, spreads on GBM
// assets): the fused route, the two-phase route and the Greek channels. Real is the path
// precision: float, or double under --precision double (the Greek channels are float only).
// Plain C++ header.
#include "mcprice/kernels/greeks/basket_greeks.hpp"
#include "mcprice/kernels/launch/family_ref.hpp"
#include "mcprice/kernels/launch/launch_target.hpp"
#include "mcprice/kernels/models/basket_gbm.hpp"

namespace mcprice::kernels {

// Every trade's assets (trade.first_asset) and correlation factors (trade.first_factor; with
// Greeks, the correlation-bumped factors after a trade's own).
template <typename Real>
struct basket_tables {
  const basic_basket_asset<Real>* assets{nullptr};
  const Real* factors{nullptr};
};

template <typename Real>
using basket_ref = family_ref<basic_basket_gbm_trade<Real>, basket_tables<Real>>;

// The fused route: the moments of the request's canonical blocks `blocks`, block b's written to
// partials[(b - blocks.begin) x layout::partials_per_block, ...).
template <typename Real>
void launch_basket_blocks(const basket_ref<Real>& f, block_range blocks, moments* partials, launch_target at);

// Rows of path scratch a sample of this trade needs (a row holds one value per lane of a block).
template <typename Real>
inline int basket_rows_per_sample(const basic_basket_gbm_trade<Real>& t)
{
  return t.assets * (t.antithetic ? 2 : 1);
}

// The two-phase route: an observation kernel stores each sample's terminal spots (every asset,
// both paths of an antithetic pair) in path scratch; a payoff kernel forms the payoff from them
// with the fused route's code; a block kernel forms the canonical-block moments. The routes agree
// bit for bit. s.rows: the most rows a sample of the request needs.
template <typename Real>
void launch_basket_two_phase(const basket_ref<Real>& f, block_range blocks, const two_phase_scratch<Real>& s,
                             moments* partials, launch_target at);

// Like launch_basket_blocks (the same price partials, bit for bit), plus each partial's Greek
// sums (trades with t.greeks; the others' stay zero).
void launch_basket_greek_blocks(const basket_ref<float>& f, block_range blocks, moments* price_partials,
                                basket_greek_moments* greek_partials, launch_target at);

}  // namespace mcprice::kernels
