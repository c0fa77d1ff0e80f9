#pragma once
// The GPU's NormalStream: cuRAND's device API, Philox4_32_10, one subsequence per lane group.
// curand_init computes a Philox block that curand_normal4 then consumes; the compiler drops
// the look-ahead block that a state discarded after use never reads.
#include "mcprice/kernels/rng/box_muller.hpp"

#include <curand_kernel.h>

namespace mcprice::rng {

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
  __device__ __forceinline__ f32x4 next4()
  {
    float4 const z = curand_normal4(&state_);
    return {z.x, z.y, z.z, z.w};
  }
  __device__ __forceinline__ f64x4 next4_double()
  {
    u32x4 const first = next_uint4();
    return box_muller4_double(first, next_uint4());
  }

 private:
  curandStatePhilox4_32_10_t state_;
};

}  // namespace mcprice::rng
