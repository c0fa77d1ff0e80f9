#pragma once
// The GPU's NormalStream: cuRAND's device API, Philox4_32_10, one subsequence per lane group,
// mapped to normals by box_muller_fast. curand_init computes a Philox block that curand4 then
// consumes; the compiler drops the look-ahead block that a state discarded after use never reads.
#include "mcprice/kernels/rng/box_muller.hpp"

#include <curand_kernel.h>

namespace mcprice::rng {

// Box-Muller on one pair of 32-bit outputs, as cuRAND's curand_normal4 maps them (the same
// uniforms, angle and sine/cosine), but the radius sqrt(-2 ln u) from the hardware's
// approximate log2 and square root instead of the accurate logf and IEEE sqrtf, which were a
// quarter of a European path's instructions. Over all 2^32 inputs the radius is within 2.3e-6
// relative of the exact one for u < 0.99 (radii above 0.14); closer to 1 the log's absolute
// error (about 1e-7) dominates, up to 2.2e-4 absolute on radii below 1e-3. The max() keeps a
// log2 that rounds above zero for u just below 1 from making a NaN.
__device__ __forceinline__ void box_muller_fast(std::uint32_t a, std::uint32_t b, float& n0, float& n1)
{
  float const u = fmaf(static_cast<float>(a), detail::two_pow_32_inv, detail::two_pow_32_inv / 2);
  float const v = fmaf(static_cast<float>(b), detail::two_pow_32_inv_2pi, detail::two_pow_32_inv_2pi / 2);
  float log2_u;
  asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(log2_u) : "f"(u));
  float radius;
  asm("sqrt.approx.ftz.f32 %0, %1;" : "=f"(radius) : "f"(fmaxf(-2.0F * 0.6931472F * log2_u, 0.0F)));
  __sincosf(v, &n0, &n1);
  n0 *= radius;
  n1 *= radius;
}

__device__ __forceinline__ f32x4 box_muller4_fast(u32x4 r)
{
  f32x4 n{};
  box_muller_fast(r.x, r.y, n.x, n.y);
  box_muller_fast(r.z, r.w, n.z, n.w);
  return n;
}

struct device_normal_stream {
  __device__ __forceinline__ device_normal_stream(std::uint64_t key, std::uint64_t subsequence)
  {
    curand_init(key, subsequence, 0, &state_);
  }
  // The next block's raw outputs (curand4: the same counter curand_normal4 advances).
  __device__ __forceinline__ u32x4 next_uint4()
  {
    uint4 const u = curand4(&state_);
    return {u.x, u.y, u.z, u.w};
  }
  // cuRAND's Philox block through Box-Muller with the hardware's log2 and square root
  // (docs/design.md, "Box-Muller's radius from the hardware's log2 and square root").
  __device__ __forceinline__ f32x4 next4() { return box_muller4_fast(next_uint4()); }
  __device__ __forceinline__ f64x4 next4_double()
  {
    u32x4 const first = next_uint4();
    return box_muller4_double(first, next_uint4());
  }

 private:
  curandStatePhilox4_32_10_t state_;
};

}  // namespace mcprice::rng
