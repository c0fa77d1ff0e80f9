#pragma once
// The device-backed memory resources the engine can run on, for comparison under load:
//  - cuda_malloc_resource: cudaMalloc/cudaFree per request, the baseline (a free synchronises
//    the device);
//  - default_pool_resource: cudaMallocAsync on the device's default pool (left as configured:
//    a library must not change the default pool);
//  - explicit_pool_resource: cudaMallocFromPoolAsync on a pool of our own, with a maximum size,
//    a release threshold and reuse-policy flags.
#include "mcprice/memory/memory_resource.hpp"
#include "mcprice/memory/memory_statistics.hpp"
#include "mcprice/memory/unique_handle.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>

namespace mcprice {

class cuda_malloc_resource final : public memory_resource {
 private:
  void* do_allocate(std::size_t bytes, stream_view s) override;
  void do_deallocate(void* p, std::size_t bytes, stream_view s) noexcept override;
  [[nodiscard]] std::string do_name() const override { return "malloc"; }
};

// The driver's view of a memory pool: what it reserves from the device and what allocations use.
[[nodiscard]] driver_pool_usage pool_usage(cudaMemPool_t pool);

class default_pool_resource final : public memory_resource {
 public:
  // The device's default pool, which this resource allocates from (left as configured).
  [[nodiscard]] driver_pool_usage driver_usage() const;

 private:
  void* do_allocate(std::size_t bytes, stream_view s) override;
  void do_deallocate(void* p, std::size_t bytes, stream_view s) noexcept override;
  [[nodiscard]] std::string do_name() const override { return "async-default"; }
};

struct explicit_pool_options {
  int device{0};
  std::size_t max_size{0};                         // 0 = the driver's default (the device's memory)
  std::size_t release_threshold{~std::size_t{0}};  // bytes kept cached across synchronisations
  // By default blocks are reused only in stream order or after an event the caller inserted;
  // the driver's opportunistic and internal-dependency reuse are off. Opportunistic reuse (a
  // block whose free the device has completed, on any stream) is safe and moves no result bit:
  // the bucketed pool turns it on beneath itself, so memory it gives back on one stream serves
  // the next growth on another. Internal dependencies (waits the driver inserts) stay off: they
  // would tie streams together unseen.
  bool opportunistic_reuse{false};
};

namespace detail {
void destroy_pool(cudaMemPool_t p) noexcept;
}

// Move-only owner of a cudaMemPool_t.
class memory_pool {
 public:
  explicit memory_pool(const explicit_pool_options& options);
  [[nodiscard]] cudaMemPool_t value() const noexcept { return pool_.get(); }

 private:
  unique_handle<cudaMemPool_t, detail::destroy_pool> pool_;
};

class explicit_pool_resource final : public memory_resource {
 public:
  explicit explicit_pool_resource(const explicit_pool_options& options);
  [[nodiscard]] driver_pool_usage driver_usage() const;
  // Returns cached memory above `keep` bytes to the device. Frees still queued on a stream are
  // not released: synchronise those streams first.
  void trim_to(std::size_t keep);
  [[nodiscard]] cudaMemPool_t pool() const noexcept { return pool_.value(); }

 private:
  void* do_allocate(std::size_t bytes, stream_view s) override;
  void do_deallocate(void* p, std::size_t bytes, stream_view s) noexcept override;
  [[nodiscard]] std::string do_name() const override { return "pool"; }
  void do_release_unused(std::size_t keep) noexcept override;
  memory_pool pool_;
  std::size_t max_size_;
};

}  // namespace mcprice
