#pragma once
// Where a launch goes: a stream, and the grid. Plain C++ with the CUDA runtime's types only.
#include <cuda_runtime_api.h>

#include <cstdint>

namespace mcprice::kernels {

struct launch_target {
  cudaStream_t stream{nullptr};
  // 0 picks the tuned persistent grid; any other value gives the same bits (it is for checks).
  int grid_blocks{0};
  // --rng sobol: the device's Sobol nibble tables, built from the direction numbers
  // (rng/sobol_points.hpp); nullptr: Philox.
  const std::uint32_t* sobol_directions{nullptr};
};

}  // namespace mcprice::kernels
