#include "mcprice/memory/gpudirect_buffer.hpp"

#include "mcprice/memory/cuda_error.hpp"

#include <cuda.h>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace mcprice {
namespace {

using get_attribute_fn = CUresult (*)(void*, CUpointer_attribute, CUdeviceptr);
using set_attribute_fn = CUresult (*)(const void*, CUpointer_attribute, CUdeviceptr);

template <typename Fn>
Fn driver_entry(const char* symbol)
{
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult found{};
  MCPRICE_CUDA_TRY(cudaGetDriverEntryPointByVersion(symbol, &fn, 12000, cudaEnableDefault, &found));
  if (found != cudaDriverEntryPointSuccess || fn == nullptr) {
    throw std::runtime_error(std::string("the CUDA driver does not provide ") + symbol);
  }
  return reinterpret_cast<Fn>(fn);
}

void check_driver(CUresult r, const char* what)
{
  if (r != CUDA_SUCCESS) throw std::runtime_error(std::string(what) + " failed with CUresult " + std::to_string(r));
}

}  // namespace

pointer_rdma_attributes query_rdma_attributes(const void* device_ptr)
{
  static auto const get = driver_entry<get_attribute_fn>("cuPointerGetAttribute");
  auto const ptr = reinterpret_cast<CUdeviceptr>(device_ptr);
  pointer_rdma_attributes a;
  int capable = 0;
  check_driver(get(&capable, CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE, ptr),
               "cuPointerGetAttribute(RDMA_CAPABLE)");
  void* pool = nullptr;
  check_driver(get(&pool, CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, ptr), "cuPointerGetAttribute(MEMPOOL_HANDLE)");
  int sync = 0;
  check_driver(get(&sync, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, ptr), "cuPointerGetAttribute(SYNC_MEMOPS)");
  a.rdma_capable = capable == 1;
  a.from_pool = pool != nullptr;
  a.sync_memops = sync != 0;
  return a;
}

gpudirect_buffer::gpudirect_buffer(std::size_t bytes) : raw_(bytes + page), bytes_(bytes)
{
  auto const base = reinterpret_cast<std::uintptr_t>(raw_.data());
  aligned_ = reinterpret_cast<void*>((base + page - 1) / page * page);
  static auto const set = driver_entry<set_attribute_fn>("cuPointerSetAttribute");
  unsigned int const on = 1;
  check_driver(set(&on, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, reinterpret_cast<CUdeviceptr>(aligned_)),
               "cuPointerSetAttribute(SYNC_MEMOPS)");
  auto const a = query_rdma_attributes(aligned_);
  if (!a.rdma_capable)
    throw std::runtime_error("market buffer is not GPUDirect RDMA capable (IS_GPU_DIRECT_RDMA_CAPABLE = 0)");
  if (a.from_pool) throw std::runtime_error("market buffer came from a memory pool (MEMPOOL_HANDLE is set)");
  if (!a.sync_memops) throw std::runtime_error("market buffer does not have SYNC_MEMOPS set");
}

}  // namespace mcprice
