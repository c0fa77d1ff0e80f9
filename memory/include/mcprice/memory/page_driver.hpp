#pragma once
// What the mapped-page pool asks of the driver's virtual memory management (cuMemCreate,
// cuMemMap and their inverses): physical pages of one size, address ranges, and mappings of one
// page at one address. Behind an interface so that the pool's bookkeeping is tested without a
// device (tests/memory/fake_device.hpp).
#include <cstddef>
#include <cstdint>
#include <memory>

namespace mcprice {

using page_handle = std::uint64_t;  // CUmemGenericAllocationHandle
using device_address = std::uint64_t;  // CUdeviceptr

class page_driver {
 public:
  virtual ~page_driver() = default;
  // The mapping granularity: every page is this many bytes, every range a multiple of it.
  [[nodiscard]] virtual std::size_t page_size() const noexcept = 0;
  // A range of addresses with nothing behind them; throws out_of_memory when none is left.
  virtual device_address reserve(std::size_t bytes) = 0;
  virtual void unreserve(device_address base, std::size_t bytes) noexcept = 0;
  // One page of device memory; throws out_of_memory when the device has none.
  virtual page_handle create_page() = 0;
  virtual void release_page(page_handle page) noexcept = 0;
  // Maps the page at `at` (page-aligned, inside a reserved range). The host does not wait on
  // any stream.
  virtual void map(device_address at, page_handle page) = 0;
  // Lets the device read and write `bytes` of mapped pages from `at`: one call for a run of them.
  virtual void allow_access(device_address at, std::size_t bytes) = 0;
  virtual void unmap(device_address at) noexcept = 0;
};

// The CUDA driver's virtual memory management on `device`, reached through the runtime's
// driver entry points (the library never links libcuda itself). Throws cuda_error where the
// device does not support it.
[[nodiscard]] std::unique_ptr<page_driver> make_cuda_page_driver(int device);

}  // namespace mcprice
