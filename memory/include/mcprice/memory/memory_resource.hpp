#pragma once
// The stream-ordered allocation interface (RMM's device_memory_resource shape): a small
// non-virtual public surface over private virtuals, the stream always explicit. Memory freed on
// a stream may be reused by work ordered after the free on that stream.
#include "mcprice/memory/stream.hpp"

#include <cstddef>
#include <string>

namespace mcprice {

class memory_resource {
 public:
  virtual ~memory_resource() = default;
  memory_resource() = default;
  memory_resource(const memory_resource&) = delete;
  memory_resource& operator=(const memory_resource&) = delete;

  // Throws out_of_memory (or cuda_error) on failure; never returns null for bytes > 0.
  [[nodiscard]] void* allocate(std::size_t bytes, stream_view s) { return do_allocate(bytes, s); }
  void deallocate(void* p, std::size_t bytes, stream_view s) noexcept { do_deallocate(p, bytes, s); }
  [[nodiscard]] std::string name() const { return do_name(); }
  // What an allocation of `bytes` takes from this resource after its rounding (a size class),
  // where the resource knows it; the request itself otherwise.
  [[nodiscard]] std::size_t granted_size(std::size_t bytes) const { return do_granted_size(bytes); }
  // Gives memory the resource caches and no allocation uses back to where it came from, until it
  // holds at most `keep` bytes in all (live allocations included), where the resource caches any:
  // a pool beneath another pool keeps only what the pool above it allows itself.
  void release_unused(std::size_t keep) noexcept { do_release_unused(keep); }

 private:
  virtual void* do_allocate(std::size_t bytes, stream_view s) = 0;
  virtual void do_deallocate(void* p, std::size_t bytes, stream_view s) noexcept = 0;
  [[nodiscard]] virtual std::string do_name() const = 0;
  [[nodiscard]] virtual std::size_t do_granted_size(std::size_t bytes) const { return bytes; }
  virtual void do_release_unused(std::size_t /*keep*/) noexcept {}
};

}  // namespace mcprice
