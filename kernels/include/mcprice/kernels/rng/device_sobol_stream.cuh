#pragma once
// The GPU's quasi-random stream. The nibble tables (sobol_points.hpp) are uploaded once per
// device with the market (gpu_context.cpp); their address reaches the per-path code through a
// __constant__ pointer of each kernel translation unit (the library is built without
// relocatable device code, so every unit has its own), written by bind_sobol_directions on the
// launch's stream before a quasi-random kernel. The address never changes for a device, so
// concurrent writes agree.
#include "mcprice/kernels/rng/sobol_stream.hpp"

#include <cuda_runtime.h>

#include <cstdint>

namespace mcprice::rng {
namespace {

__constant__ const std::uint32_t* sobol_direction_pointer;

struct device_sobol_directions {
  __device__ __forceinline__ static const std::uint32_t* get() { return sobol_direction_pointer; }
};

// Makes this unit's kernels read `table` (device memory) for the launches queued after it on `stream`.
inline cudaError_t bind_sobol_directions(const std::uint32_t* table, cudaStream_t stream)
{
  // A pageable source: the value is read before the call returns, so the local may go.
  return cudaMemcpyToSymbolAsync(sobol_direction_pointer, &table, sizeof table, 0, cudaMemcpyHostToDevice, stream);
}

}  // namespace

template <int MaxFactors, typename Real = float>
using device_sobol_stream = sobol_stream<device_sobol_directions, MaxFactors, Real>;

}  // namespace mcprice::rng
