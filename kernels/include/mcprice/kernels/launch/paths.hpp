#pragma once
// Host entry points of the GBM path kernels (Asians, barriers, touches, lookbacks): the fused
// route, the two-phase route and the Greek lanes. Real is the path precision: float, or double
// under --precision double (the Greek lanes are float only). Plain C++ header.
#include "mcprice/kernels/greeks/path_greeks.hpp"
#include "mcprice/kernels/launch/family_ref.hpp"
#include "mcprice/kernels/launch/launch_target.hpp"
#include "mcprice/kernels/models/path_gbm.hpp"

#include <cstdint>

namespace mcprice::kernels {

// Every trade's steps in one grid (trade.first_step, trade.steps); with Greeks, the Greek grid
// parallel to it (float only; empty without Greeks).
template <typename Real>
struct path_tables {
  const basic_path_step<Real>* grid{nullptr};
  const basic_path_greek_step<Real>* greek_grid{nullptr};
};

template <typename Real>
using path_ref = family_ref<basic_path_gbm_trade<Real>, path_tables<Real>>;

// The fused route: the moments of the request's canonical blocks `blocks`, block b's written to
// partials[(b - blocks.begin) x layout::partials_per_block, ...).
template <typename Real>
void launch_path_blocks(const path_ref<Real>& f, block_range blocks, moments* partials, launch_target at);

// The two-phase route: an observation kernel stores each sample's log spot after every step of
// its grid (both paths of an antithetic pair, and the bridge normals of a continuously monitored
// lookback) in path scratch; a payoff kernel replays them through the same path state into one
// value per sample in payoff scratch; a block kernel forms the canonical-block moments. The
// replay does the fused route's arithmetic on the same values, so the routes agree bit for bit.
// Rows of path scratch a sample of this trade needs (a row holds one value per lane of a block).
template <typename Real>
inline int path_rows_per_sample(const basic_path_gbm_trade<Real>& t)
{
  bool const bridge_normals = t.product == path_product::lookback && t.continuous;
  return t.steps * ((t.antithetic ? 2 : 1) + (bridge_normals ? 1 : 0));
}

// s.rows: the most rows a sample of the request needs.
template <typename Real>
void launch_path_two_phase(const path_ref<Real>& f, block_range blocks, const two_phase_scratch<Real>& s,
                           moments* partials, launch_target at);

// Like launch_path_blocks (the same price partials, bit for bit), plus each partial's Greek sums:
// pathwise for Asians (every trade of f an Asian), or by scenario lanes for barriers, touches and
// lookbacks (every trade of f one of those).
void launch_asian_greek_blocks(const path_ref<float>& f, block_range blocks, moments* price_partials,
                               path_greek_moments* greek_partials, launch_target at);
void launch_scenario_greek_blocks(const path_ref<float>& f, block_range blocks, moments* price_partials,
                                  path_greek_moments* greek_partials, launch_target at);

}  // namespace mcprice::kernels
