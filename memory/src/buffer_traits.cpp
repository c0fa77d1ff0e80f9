#include "mcprice/memory/cuda_error.hpp"
#include "mcprice/memory/device_buffer.hpp"
#include "mcprice/memory/pinned_buffer.hpp"

namespace mcprice {

void* cuda_malloc_traits::allocate(std::size_t bytes)
{
  void* p = nullptr;
  MCPRICE_CUDA_TRY(cudaMalloc(&p, bytes));
  return p;
}

void cuda_malloc_traits::release(void* p) noexcept { MCPRICE_CUDA_TRY_NOTHROW(cudaFree(p)); }

void* pinned_host_traits::allocate(std::size_t bytes)
{
  void* p = nullptr;
  MCPRICE_CUDA_TRY(cudaMallocHost(&p, bytes));
  return p;
}

void pinned_host_traits::release(void* p) noexcept { MCPRICE_CUDA_TRY_NOTHROW(cudaFreeHost(p)); }

}  // namespace mcprice
