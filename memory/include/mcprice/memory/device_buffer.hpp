#pragma once
// A cudaMalloc allocation owned for its scope. Persistent and GPUDirect memory build on it;
// per-job scratch comes from a memory resource instead (scratch_lease).
#include "mcprice/memory/owning_buffer.hpp"

namespace mcprice {

struct cuda_malloc_traits {
  static void* allocate(std::size_t bytes);
  static void release(void* p) noexcept;
};

using device_buffer = owning_buffer<cuda_malloc_traits>;

}  // namespace mcprice
