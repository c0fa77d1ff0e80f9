#pragma once
// What a jump asset's steps take from the market: its intensity, and the log forward its
// diffusion steps to, less the jumps' compensator (models/jumps.hpp), so that with the jumps
// the forward is the curves' own. Shared by the path families and the early-exercise walk.
#include "mcprice/kernels/models/jumps.hpp"
#include "mcprice/market.hpp"

#include <cstdint>

namespace mcprice::detail {

// Jumps a year on the asset (0: none).
inline double jump_intensity(const asset& a) { return a.jumps ? a.jumps->intensity : 0.0; }

// The asset's jump law in a kernel record's precision (intensity 0: none).
template <typename Real>
basic_jump_law<Real> jump_law_of(const asset& a)
{
  if (jump_intensity(a) <= 0.0) return {Real(0), Real(0), Real(0)};
  return {static_cast<Real>(a.jumps->intensity), static_cast<Real>(a.jumps->mean), static_cast<Real>(a.jumps->vol)};
}

// Raw draws a walk of `steps` steps takes for `jumping` assets (jump_feeder.hpp): a jump draw per
// jumping asset a step, two to each block of four.
inline int jump_feeder_uniforms(int steps, int jumping)
{
  return static_cast<int>(4 * ((std::int64_t{steps} * jumping + 1) / 2));
}

// ln F(t) less lambda kappa t.
inline double diffusion_log_forward(const market_data& market, const asset& a, double time)
{
  double const lambda = jump_intensity(a);
  double const compensator = lambda > 0.0 ? lambda * jump_kappa(a.jumps->mean, a.jumps->vol) : 0.0;
  return market.log_forward(a, time) - compensator * time;
}

}  // namespace mcprice::detail
