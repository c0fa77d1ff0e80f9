#pragma once
// Market-data buffers a NIC can DMA into (GPUDirect RDMA): plain cudaMalloc memory, never from a
// stream-ordered pool (which RDMA does not support), aligned to 64 KiB GPU pages, with
// CU_POINTER_ATTRIBUTE_SYNC_MEMOPS set so synchronous copies and RDMA see a consistent view.
// The attributes are checked when the buffer is made.
#include "mcprice/memory/device_buffer.hpp"

#include <cstddef>

namespace mcprice {

struct pointer_rdma_attributes {
  bool rdma_capable{false};  // CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE
  bool from_pool{false};     // CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE is not null
  bool sync_memops{false};   // CU_POINTER_ATTRIBUTE_SYNC_MEMOPS
};

// Reads the attributes of any device pointer (through the driver entry points of the runtime,
// so the library needs no link to libcuda).
pointer_rdma_attributes query_rdma_attributes(const void* device_ptr);

class gpudirect_buffer {
 public:
  static constexpr std::size_t page = std::size_t{64} << 10;

  gpudirect_buffer() = default;
  // Throws cuda_error, or std::runtime_error naming the attribute when a check fails.
  explicit gpudirect_buffer(std::size_t bytes);

  [[nodiscard]] void* data() noexcept { return aligned_; }
  [[nodiscard]] const void* data() const noexcept { return aligned_; }
  [[nodiscard]] std::size_t size() const noexcept { return bytes_; }
  template <typename T>
  [[nodiscard]] T* as() noexcept
  {
    return static_cast<T*>(aligned_);
  }

 private:
  device_buffer raw_;
  void* aligned_{nullptr};
  std::size_t bytes_{0};
};

}  // namespace mcprice
