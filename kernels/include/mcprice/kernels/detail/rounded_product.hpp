#pragma once
// a * b rounded to the path precision and never contracted into a neighbouring addition: the
// same bits in every kernel a piece of per-path maths is inlined into (nvcc may fuse a product
// and an add into one FMA in one context and not in another; the price, Greek and two-phase
// kernels must agree bit for bit). The host compiler does not contract here, so CPU results are
// unchanged by it.
#include "mcprice/kernels/detail/host_device.hpp"

namespace mcprice {

MCPRICE_HD MCPRICE_INLINE float rounded_product(float a, float b)
{
#if defined(__CUDA_ARCH__)
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}

MCPRICE_HD MCPRICE_INLINE double rounded_product(double a, double b)
{
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}

}  // namespace mcprice
