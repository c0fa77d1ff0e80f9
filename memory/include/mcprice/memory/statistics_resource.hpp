#pragma once
// Counts what passes through to another resource (RMM's statistics_resource_adaptor): bytes
// requested by live allocations and their peak, allocations, failures, and allocate() latency.
// The GPU backend puts it over the allocators that keep no statistics of their own (cudaMalloc,
// the device's default pool), so every allocator strategy reports the same requested figures.
// Thread-safe.
#include "mcprice/memory/latency_histogram.hpp"
#include "mcprice/memory/memory_resource.hpp"
#include "mcprice/memory/memory_statistics.hpp"

#include <cstdint>
#include <mutex>

namespace mcprice {

class statistics_resource final : public memory_resource {
 public:
  explicit statistics_resource(memory_resource& upstream) : upstream_(upstream) {}

  [[nodiscard]] resource_statistics statistics() const;
  // The peak restarts from the bytes live now (a load test's phases each get their own).
  void reset_peak() noexcept;

 private:
  void* do_allocate(std::size_t bytes, stream_view s) override;
  void do_deallocate(void* p, std::size_t bytes, stream_view s) noexcept override;
  [[nodiscard]] std::string do_name() const override { return upstream_.name(); }
  [[nodiscard]] std::size_t do_granted_size(std::size_t bytes) const override { return upstream_.granted_size(bytes); }

  memory_resource& upstream_;
  mutable std::mutex mutex_;
  resource_statistics stats_;
  latency_histogram latency_;
};

}  // namespace mcprice
