#pragma once
// Host entry points of the Heston kernels (every single-asset product): the fused route, the
// two-phase route and the Greek scenario lanes. Real is the path precision: float, or double
// under --precision double (the Greek lanes are float only). Plain C++ header.
#include "mcprice/kernels/greeks/heston_greeks.hpp"
#include "mcprice/kernels/launch/family_ref.hpp"
#include "mcprice/kernels/launch/launch_target.hpp"
#include "mcprice/kernels/models/heston_path.hpp"

#include <cstdint>

namespace mcprice::kernels {

// Every trade's QE steps in one table (trade.first_step, trade.steps; with Greeks, each trade's
// two rolled first steps after its own, heston_greeks.hpp).
template <typename Real>
struct heston_tables {
  const basic_heston_step<Real>* steps{nullptr};
  // Every trade of the request is a European: a leaner fused kernel, the same bits.
  bool europeans_only{false};
};

template <typename Real>
using heston_ref = family_ref<basic_heston_trade<Real>, heston_tables<Real>>;

// The fused route: the moments of the request's canonical blocks `blocks`, block b's written to
// partials[(b - blocks.begin) x layout::partials_per_block, ...).
template <typename Real>
void launch_heston_blocks(const heston_ref<Real>& f, block_range blocks, moments* partials, launch_target at);

// Rows of path scratch a sample of this trade needs (a row holds one value per lane of a block).
template <typename Real>
inline int heston_rows_per_sample(const basic_heston_trade<Real>& t)
{
  bool const bridge_normals = t.product == path_product::lookback && t.continuous;
  return t.steps * (2 * (t.antithetic ? 2 : 1) + (bridge_normals ? 1 : 0));
}

// The two-phase route: an observation kernel stores, after every step, the log spot and the
// step's integrated variance of each path of a sample (and the bridge normal of a continuously
// monitored lookback); a payoff kernel replays them through the fused route's path state; a
// block kernel forms the canonical-block moments. Same values, same arithmetic: the routes agree
// bit for bit. s.rows: the most rows a sample of the request needs.
template <typename Real>
void launch_heston_two_phase(const heston_ref<Real>& f, block_range blocks, const two_phase_scratch<Real>& s,
                             moments* partials, launch_target at);

// Like launch_heston_blocks (the same price partials, bit for bit), plus each partial's Greek
// sums by scenario lanes.
void launch_heston_greek_blocks(const heston_ref<float>& f, block_range blocks, moments* price_partials,
                                path_greek_moments* greek_partials, launch_target at);

}  // namespace mcprice::kernels
