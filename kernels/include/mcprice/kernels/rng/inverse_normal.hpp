#pragma once
// A standard normal from one 32-bit Philox output by the inverse normal CDF, for the Heston
// Europeans' variance steps (heston_conditional.hpp): one logarithm and nine FMAs a normal,
// where a Box-Muller normal costs a logarithm, a root, a sine or cosine with its range
// reduction, and twice the random bits.
//
// z = sqrt(2) erfinv(2U - 1) with Giles' single-precision erfinv (M. Giles, "Approximating the
// erfinv function", GPU Computing Gems Jade, 2011): a polynomial in w = -ln(1 - x^2), about
// 4e-7 relative. It is evaluated on the smaller tail, s = min(U, 1 - U), with 1 - x^2 formed as
// 4 s (1 - s), so the tails keep their digits; the bits' top bit gives the sign, so the
// complemented bits (the antithetic draw) give exactly -z.
//
// The same output gives the exponential branch's uniforms (draw_from_bits): U = (bits + 1/2) /
// 2^32 and, for the antithetic path, that of the complemented bits, 1 - U. The smaller of the
// two is s itself (to float's precision); the larger is 1 - s, rounded (by under 2^-24, where
// it decides small draws of v'), which the normal's 1 - x^2 computes anyway.
#include "mcprice/kernels/detail/host_device.hpp"
#include "mcprice/kernels/detail/rounded_product.hpp"

#include <cmath>
#include <cstdint>

namespace mcprice {

// z, and the uniforms of the bits and of their complement.
struct bits_draw {
  float z;
  float uniform;     // (bits + 1/2) / 2^32
  float complement;  // (~bits + 1/2) / 2^32 = 1 - uniform
};

MCPRICE_HD MCPRICE_INLINE bits_draw draw_from_bits(std::uint32_t bits)
{
  bool const upper = (bits >> 31) != 0U;
  std::uint32_t const tail = upper ? ~bits : bits;  // < 2^31: s < 1/2
  // (tail + 1/2) / 2^32: never 0.
  float const s = fmaf(static_cast<float>(tail), 2.3283064e-10F, 1.1641532e-10F);
  float const one_minus_s = 1.0F - s;
  float const one_minus_x_squared = 4.0F * s * one_minus_s;
#if defined(__CUDA_ARCH__)
  // __logf's product, rounded on its own: w - 2.5 below must not become an FMA in one kernel only.
  float w = rounded_product(__log2f(one_minus_x_squared), -0.693147182F);
#else
  float w = -std::log(one_minus_x_squared);
#endif
  float p;
  if (w < 5.0F) {
    w -= 2.5F;
    p = 2.81022636e-08F;
    p = fmaf(p, w, 3.43273939e-07F);
    p = fmaf(p, w, -3.5233877e-06F);
    p = fmaf(p, w, -4.39150654e-06F);
    p = fmaf(p, w, 0.00021858087F);
    p = fmaf(p, w, -0.00125372503F);
    p = fmaf(p, w, -0.00417768164F);
    p = fmaf(p, w, 0.246640727F);
    p = fmaf(p, w, 1.50140941F);
  } else {
    w = sqrtf(w) - 3.0F;
    p = -0.000200214257F;
    p = fmaf(p, w, 0.000100950558F);
    p = fmaf(p, w, 0.00134934322F);
    p = fmaf(p, w, -0.00367342844F);
    p = fmaf(p, w, 0.00573950773F);
    p = fmaf(p, w, -0.0076224613F);
    p = fmaf(p, w, 0.00943887047F);
    p = fmaf(p, w, 1.00167406F);
    p = fmaf(p, w, 2.83297682F);
  }
  // x = 1 - 2s >= 0 is exact for s in [1/4, 1/2] and loses nothing that matters below.
  float const magnitude = 1.41421356F * p * (1.0F - 2.0F * s);
  if (upper) return {magnitude, one_minus_s, s};
  return {-magnitude, s, one_minus_s};
}

MCPRICE_HD MCPRICE_INLINE float normal_from_bits(std::uint32_t bits) { return draw_from_bits(bits).z; }

}  // namespace mcprice
