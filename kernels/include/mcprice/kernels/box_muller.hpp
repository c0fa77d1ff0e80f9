#pragma once
// The uniform-to-normal mapping of cuRAND's curand_normal4 (Box-Muller on pairs of 32-bit
// outputs, with cuRAND's half-step offsets so that u is never 0). The host version uses the
// accurate logf/sinf/cosf; the device draws through cuRAND itself, whose __sincosf differs in
// the last bits, which is why CPU and GPU prices agree to float rounding, not bit for bit.
#include "mcprice/kernels/philox.hpp"

#include <cmath>

namespace mcprice::rng {

struct f32x4 {
  float x, y, z, w;
};

namespace detail {
constexpr float two_pow_32_inv = 2.3283064e-10F;
constexpr float two_pow_32_inv_2pi = 2.3283064e-10F * 6.2831855F;
}  // namespace detail

// Host mirror only: device code calls curand_normal4 (see device_normal_stream.cuh).
inline void box_muller(std::uint32_t a, std::uint32_t b, float& n0, float& n1)
{
  // nvcc contracts "x * c + c/2" into one FMA on the device; std::fma reproduces that rounding.
  float const u = std::fma(static_cast<float>(a), detail::two_pow_32_inv, detail::two_pow_32_inv / 2);
  float const v =
      std::fma(static_cast<float>(b), detail::two_pow_32_inv_2pi, detail::two_pow_32_inv_2pi / 2);
  float const s = std::sqrt(-2.0F * std::log(u));
  n0 = std::sin(v) * s;
  n1 = std::cos(v) * s;
}

inline f32x4 box_muller4(u32x4 r)
{
  f32x4 n{};
  box_muller(r.x, r.y, n.x, n.y);
  box_muller(r.z, r.w, n.z, n.w);
  return n;
}

}  // namespace mcprice::rng
