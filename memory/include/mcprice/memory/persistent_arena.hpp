#pragma once
// Long-lived device data (curves, vol tables, the trade table) in one up-front cudaMalloc,
// handed out by bumping an offset and freed only with the arena. Keeping these out of the
// scratch pool is what keeps long-lived blocks from pinning the pool's free space apart.
#include "mcprice/memory/device_buffer.hpp"

#include <cstddef>
#include <initializer_list>

namespace mcprice {

class persistent_arena {
 public:
  explicit persistent_arena(std::size_t capacity);
  // Throws std::length_error when the arena is exhausted (a planning error, not a runtime state).
  [[nodiscard]] void* allocate(std::size_t bytes, std::size_t alignment = 256);
  template <typename T>
  [[nodiscard]] T* allocate_n(std::size_t n) { return static_cast<T*>(allocate(n * sizeof(T), alignof(T) > 256 ? alignof(T) : 256)); }
  [[nodiscard]] std::size_t used() const noexcept { return used_; }
  [[nodiscard]] std::size_t capacity() const noexcept { return buffer_.size(); }
  // Bytes an arena needs to hold these sizes, each aligned to 256.
  static std::size_t footprint(std::initializer_list<std::size_t> sizes);

 private:
  device_buffer buffer_;
  std::size_t used_{0};
};

}  // namespace mcprice
