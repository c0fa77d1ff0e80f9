#pragma once
// The time scenarios' roll of a trade's first step, min(1 day, t_1 / 2), in either path
// precision: the single-asset Heston and local-vol lanes and the worst-of walks shorten and
// lengthen their first step by it, and the hosts make the rolled steps with the same value.
#include "mcprice/kernels/detail/host_device.hpp"
#include "mcprice/kernels/detail/real_math.hpp"

namespace mcprice {

template <typename Real>
MCPRICE_HD MCPRICE_INLINE Real scenario_roll(Real first_dt)
{
  return math::fmin(Real(1) / Real(365), Real(0.5) * first_dt);
}

}  // namespace mcprice
