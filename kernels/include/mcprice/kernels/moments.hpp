#pragma once
// Running sums of a canonical block of discounted-at-maturity payoffs, in double. Blocks are
// combined in a fixed order, so the sums do not depend on how the work was scheduled.
#include "mcprice/kernels/detail/host_device.hpp"

namespace mcprice {

struct moments {
  double sum{0.0};
  double sum_sq{0.0};

  MCPRICE_HD MCPRICE_INLINE void add(float x)
  {
    double const d = x;
    sum += d;
    sum_sq += d * d;
  }

  // Adds `count` paths given as their sum and sum of squared deviations from their mean, in
  // the path precision: sum of squares = dev_sq + sum^2 / count, formed in double.
  template <typename Real>
  MCPRICE_HD MCPRICE_INLINE void add_group(Real group_sum, Real dev_sq, int count)
  {
    double const s = group_sum;
    sum += s;
    // Groups of 1, 2 and 4 divide by a power of two: exact as a product, and no double
    // division (tens of instructions on the GPU) in the lanes' inner loop.
    double const sq = s * s;
    double const mean_sq = count == 4 ? sq * 0.25 : count == 1 ? sq : count == 2 ? sq * 0.5 : sq / count;
    sum_sq += static_cast<double>(dev_sq) + mean_sq;
  }
};

MCPRICE_HD MCPRICE_INLINE moments operator+(moments a, moments b) { return {a.sum + b.sum, a.sum_sq + b.sum_sq}; }

struct moments_sum {
  MCPRICE_HD MCPRICE_INLINE moments operator()(moments a, moments b) const { return a + b; }
};

// The reduction operator of any sums type with an operator+ (the Greek sums): for CUB.
struct sums_add {
  template <typename Sums>
  MCPRICE_HD MCPRICE_INLINE Sums operator()(const Sums& a, const Sums& b) const
  {
    return a + b;
  }
};

}  // namespace mcprice
