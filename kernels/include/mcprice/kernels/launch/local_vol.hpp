#pragma once
// Host entry points of the local volatility kernels (every single-asset product): the fused
// route and the two-phase route. Real is the path precision: float, or double under
// --precision double. Plain C++ header.
#include "mcprice/kernels/greeks/local_vol_greeks.hpp"
#include "mcprice/kernels/launch/family_ref.hpp"
#include "mcprice/kernels/launch/launch_target.hpp"
#include "mcprice/kernels/models/local_vol_path.hpp"

#include <cstdint>

namespace mcprice::kernels {

// Every trade's steps in one table (trade.first_step, trade.steps), and every asset's local vol
// grid once in the surface table (trade.surface.first).
template <typename Real>
struct local_vol_tables {
  const basic_local_vol_step<Real>* steps{nullptr};
  const basic_vol_pair<Real>* surface{nullptr};
  // Some trade is an autocallable or a cliquet; without one, a leaner fused kernel, the same bits.
  bool structured{true};
};

template <typename Real>
using local_vol_ref = family_ref<basic_local_vol_trade<Real>, local_vol_tables<Real>>;

template <typename Real>
void launch_local_vol_blocks(const local_vol_ref<Real>& f, block_range blocks, moments* partials, launch_target at);

// Prices and sticky-strike Greeks by scenario lanes (local_vol_greeks.hpp), float only.
void launch_local_vol_greek_blocks(const local_vol_ref<float>& f, block_range blocks, moments* price_partials,
                                   path_greek_moments* greek_partials, launch_target at);

// Rows of path scratch a sample needs: the log spot and the step's variance of each path after
// every step, and a continuously monitored lookback's bridge normals.
template <typename Real>
inline int local_vol_rows_per_sample(const basic_local_vol_trade<Real>& t)
{
  bool const bridge_normals = t.product == path_product::lookback && t.continuous;
  return t.steps * (2 * (t.antithetic ? 2 : 1) + (bridge_normals ? 1 : 0));
}

// The two-phase route (as launch_heston_two_phase): stored log spots and variances, replayed
// through the fused route's path state, to the same bits.
template <typename Real>
void launch_local_vol_two_phase(const local_vol_ref<Real>& f, block_range blocks, const two_phase_scratch<Real>& s,
                                moments* partials, launch_target at);

}  // namespace mcprice::kernels
