#pragma once
// The GPU's NormalStream: cuRAND's device API, Philox4_32_10, one subsequence per lane group.
// curand_init computes a Philox block that curand_normal4 then consumes; the compiler drops
// the look-ahead block that a state discarded after use never reads.
#include "mcprice/kernels/box_muller.hpp"

#include <curand_kernel.h>

namespace mcprice::rng {

struct device_normal_stream {
  __device__ __forceinline__ device_normal_stream(std::uint64_t key, std::uint64_t subsequence)
  {
    curand_init(key, subsequence, 0, &state_);
  }
  __device__ __forceinline__ f32x4 next4()
  {
    float4 const z = curand_normal4(&state_);
    return {z.x, z.y, z.z, z.w};
  }

 private:
  curandStatePhilox4_32_10_t state_;
};

}  // namespace mcprice::rng
