#pragma once
// The uniform-to-normal mapping of cuRAND's curand_normal4 (Box-Muller on pairs of 32-bit
// outputs, with cuRAND's half-step offsets so that u is never 0). The host version uses the
// accurate logf/sinf/cosf; the device takes the hardware's sine, cosine, log2 and square root
// (box_muller_fast in device_normal_stream.cuh), which differ by about 1e-6 relative, which is
// why CPU and GPU prices agree to float rounding, not bit for bit.
#include "mcprice/kernels/rng/philox.hpp"

#include <cmath>
#include <type_traits>

namespace mcprice::rng {

struct f32x4 {
  float x, y, z, w;
};

struct f64x4 {
  double x, y, z, w;
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
  float const v = std::fma(static_cast<float>(b), detail::two_pow_32_inv_2pi, detail::two_pow_32_inv_2pi / 2);
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

// Double-precision paths (`--precision double`): a pair of normals from four 32-bit outputs,
// Box-Muller on two 53-bit uniforms (cuRAND's construction for its double normals: u in
// (0, 1) never 0, the angle as a multiple of pi). One function for both backends; the device
// takes sincospi, the host sin and cos of v pi, so CPU and GPU agree to double rounding.
MCPRICE_HD MCPRICE_INLINE void box_muller_double(u32x4 r, double& n0, double& n1)
{
  constexpr double two_pow_53_inv = 1.1102230246251565e-16;
  auto const zx = static_cast<std::uint64_t>(r.x) ^ (static_cast<std::uint64_t>(r.y) << 21);
  auto const zy = static_cast<std::uint64_t>(r.z) ^ (static_cast<std::uint64_t>(r.w) << 21);
  double const u = ::fma(static_cast<double>(zx), two_pow_53_inv, two_pow_53_inv / 2);
  double const v = ::fma(static_cast<double>(zy), 2 * two_pow_53_inv, two_pow_53_inv);
  double const s = ::sqrt(-2.0 * ::log(u));
#if defined(__CUDA_ARCH__)
  sincospi(v, &n0, &n1);
#else
  n0 = std::sin(v * 3.14159265358979323846);
  n1 = std::cos(v * 3.14159265358979323846);
#endif
  n0 *= s;
  n1 *= s;
}

MCPRICE_HD MCPRICE_INLINE f64x4 box_muller4_double(u32x4 first, u32x4 second)
{
  f64x4 n{};
  box_muller_double(first, n.x, n.y);
  box_muller_double(second, n.z, n.w);
  return n;
}

// Four normals in the path precision Real: the stream's float block (next4) or two raw blocks
// as four doubles (next4_double).
template <typename Real, typename NormalStream>
MCPRICE_HD MCPRICE_INLINE auto normals4(NormalStream& rng)
{
  if constexpr (std::is_same_v<Real, double>) return rng.next4_double();
  else return rng.next4();
}

}  // namespace mcprice::rng
