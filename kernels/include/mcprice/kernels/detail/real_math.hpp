#pragma once
// The per-path maths' elementary functions for either path precision (`--precision`): float
// (the default) or double. The float overloads call exactly the functions the float kernels
// always called (expf, fmaf, exp2f, ...), so the default's bits do not depend on this layer;
// the double overloads are their double counterparts. Written as overloads rather than as
// std:: calls so that one spelling serves the host and the device passes alike.
#include "mcprice/kernels/detail/host_device.hpp"

#include <cmath>

namespace mcprice::math {

MCPRICE_HD MCPRICE_INLINE float fma(float a, float b, float c) { return fmaf(a, b, c); }
MCPRICE_HD MCPRICE_INLINE double fma(double a, double b, double c) { return ::fma(a, b, c); }
MCPRICE_HD MCPRICE_INLINE float exp(float x) { return expf(x); }
MCPRICE_HD MCPRICE_INLINE double exp(double x) { return ::exp(x); }
MCPRICE_HD MCPRICE_INLINE float exp2(float x) { return exp2f(x); }
MCPRICE_HD MCPRICE_INLINE double exp2(double x) { return ::exp2(x); }
MCPRICE_HD MCPRICE_INLINE float log(float x) { return logf(x); }
MCPRICE_HD MCPRICE_INLINE double log(double x) { return ::log(x); }
MCPRICE_HD MCPRICE_INLINE float log1p(float x) { return log1pf(x); }
MCPRICE_HD MCPRICE_INLINE double log1p(double x) { return ::log1p(x); }
MCPRICE_HD MCPRICE_INLINE float sqrt(float x) { return sqrtf(x); }
MCPRICE_HD MCPRICE_INLINE double sqrt(double x) { return ::sqrt(x); }
MCPRICE_HD MCPRICE_INLINE float fmax(float a, float b) { return fmaxf(a, b); }
MCPRICE_HD MCPRICE_INLINE double fmax(double a, double b) { return ::fmax(a, b); }
MCPRICE_HD MCPRICE_INLINE float fmin(float a, float b) { return fminf(a, b); }
MCPRICE_HD MCPRICE_INLINE double fmin(double a, double b) { return ::fmin(a, b); }
MCPRICE_HD MCPRICE_INLINE float fabs(float x) { return fabsf(x); }
MCPRICE_HD MCPRICE_INLINE double fabs(double x) { return ::fabs(x); }

// N(z).
MCPRICE_HD MCPRICE_INLINE float standard_normal_cdf(float z)
{
#if defined(__CUDA_ARCH__)
  return normcdff(z);
#else
  return 0.5F * std::erfc(-z * 0.70710678118654752F);
#endif
}
MCPRICE_HD MCPRICE_INLINE double standard_normal_cdf(double z)
{
#if defined(__CUDA_ARCH__)
  return normcdf(z);
#else
  return 0.5 * std::erfc(-z * 0.70710678118654752440);
#endif
}

}  // namespace mcprice::math
