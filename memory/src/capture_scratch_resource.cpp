#include "mcprice/memory/capture_scratch_resource.hpp"

#include "mcprice/memory/cuda_error.hpp"

namespace mcprice {

void* capture_scratch_resource::do_allocate(std::size_t bytes, stream_view s)
{
  void* p = nullptr;
  MCPRICE_CUDA_TRY(cudaMallocAsync(&p, bytes, s.value()));
  return p;
}

void capture_scratch_resource::do_deallocate(void* p, std::size_t /*bytes*/, stream_view s) noexcept
{
  MCPRICE_CUDA_TRY_NOTHROW(cudaFreeAsync(p, s.value()));
}

}  // namespace mcprice
