#include "mcprice/memory/cuda_resources.hpp"

#include "mcprice/memory/cuda_error.hpp"
#include "mcprice/memory/memory_errors.hpp"

#include <utility>

namespace mcprice {
namespace {

// Allocation failures become out_of_memory so callers (the bucketed pool's trim-and-retry) can
// tell them from other CUDA errors.
template <typename Call>
void* checked_allocation(const char* resource, std::size_t bytes, Call call)
{
  void* p = nullptr;
  cudaError_t const status = call(&p);
  if (status == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();
    throw out_of_memory(resource, bytes, 0, 0);
  }
  MCPRICE_CUDA_TRY(status);
  return p;
}

}  // namespace

void* cuda_malloc_resource::do_allocate(std::size_t bytes, stream_view)
{
  return checked_allocation("malloc", bytes, [&](void** p) { return cudaMalloc(p, bytes); });
}

void cuda_malloc_resource::do_deallocate(void* p, std::size_t, stream_view) noexcept
{
  MCPRICE_CUDA_TRY_NOTHROW(cudaFree(p));
}

void* default_pool_resource::do_allocate(std::size_t bytes, stream_view s)
{
  return checked_allocation("async-default", bytes, [&](void** p) { return cudaMallocAsync(p, bytes, s.value()); });
}

void default_pool_resource::do_deallocate(void* p, std::size_t, stream_view s) noexcept
{
  MCPRICE_CUDA_TRY_NOTHROW(cudaFreeAsync(p, s.value()));
}

namespace detail {
void destroy_pool(cudaMemPool_t p) noexcept { MCPRICE_CUDA_TRY_NOTHROW(cudaMemPoolDestroy(p)); }
}  // namespace detail

memory_pool::memory_pool(const explicit_pool_options& o)
{
  cudaMemPoolProps props{};
  props.allocType = cudaMemAllocationTypePinned;
  props.handleTypes = cudaMemHandleTypeNone;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = o.device;
  props.maxSize = o.max_size;
  cudaMemPool_t pool = nullptr;
  MCPRICE_CUDA_TRY(cudaMemPoolCreate(&pool, &props));
  pool_ = decltype(pool_)(pool);
  std::uint64_t threshold = o.release_threshold;
  MCPRICE_CUDA_TRY(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
  int follow = 1;
  int opportunistic = o.opportunistic_reuse ? 1 : 0;
  int internal = 0;
  MCPRICE_CUDA_TRY(cudaMemPoolSetAttribute(pool, cudaMemPoolReuseFollowEventDependencies, &follow));
  MCPRICE_CUDA_TRY(cudaMemPoolSetAttribute(pool, cudaMemPoolReuseAllowOpportunistic, &opportunistic));
  MCPRICE_CUDA_TRY(cudaMemPoolSetAttribute(pool, cudaMemPoolReuseAllowInternalDependencies, &internal));
}

explicit_pool_resource::explicit_pool_resource(const explicit_pool_options& o) : pool_(o), max_size_(o.max_size) {}

void* explicit_pool_resource::do_allocate(std::size_t bytes, stream_view s)
{
  void* p = nullptr;
  cudaError_t const status = cudaMallocFromPoolAsync(&p, bytes, pool_.value(), s.value());
  if (status == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();
    throw out_of_memory("pool", bytes, driver_usage().reserved_current, max_size_);
  }
  MCPRICE_CUDA_TRY(status);
  return p;
}

void explicit_pool_resource::do_deallocate(void* p, std::size_t, stream_view s) noexcept
{
  MCPRICE_CUDA_TRY_NOTHROW(cudaFreeAsync(p, s.value()));
}

driver_pool_usage pool_usage(cudaMemPool_t pool)
{
  driver_pool_usage u;
  std::uint64_t v = 0;
  MCPRICE_CUDA_TRY(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &v));
  u.reserved_current = v;
  MCPRICE_CUDA_TRY(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemHigh, &v));
  u.reserved_high = v;
  MCPRICE_CUDA_TRY(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &v));
  u.used_current = v;
  MCPRICE_CUDA_TRY(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &v));
  u.used_high = v;
  return u;
}

driver_pool_usage explicit_pool_resource::driver_usage() const { return pool_usage(pool_.value()); }

driver_pool_usage default_pool_resource::driver_usage() const
{
  int device = 0;
  MCPRICE_CUDA_TRY(cudaGetDevice(&device));
  cudaMemPool_t pool = nullptr;
  MCPRICE_CUDA_TRY(cudaDeviceGetDefaultMemPool(&pool, device));
  return pool_usage(pool);
}

void explicit_pool_resource::trim_to(std::size_t keep) { MCPRICE_CUDA_TRY(cudaMemPoolTrimTo(pool_.value(), keep)); }

void explicit_pool_resource::do_release_unused(std::size_t keep) noexcept
{
  MCPRICE_CUDA_TRY_NOTHROW(cudaMemPoolTrimTo(pool_.value(), keep));
}

}  // namespace mcprice
