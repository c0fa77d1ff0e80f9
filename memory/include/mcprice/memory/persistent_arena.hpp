#pragma once
// Long-lived device data (curves, vol tables, trade tables) sub-allocated from one up-front
// allocation by bumping an offset, and freed only as a whole. Keeping these out of the scratch
// pool is what keeps long-lived blocks from pinning the pool's free space apart.
// arena_view sub-allocates memory someone else owns: the engine's cached request buffers,
// allocated once with cudaMalloc and kept for the engine's lifetime.

#include <cstddef>
#include <initializer_list>

namespace mcprice {

class arena_view {
 public:
  arena_view(void* base, std::size_t capacity) noexcept : base_(static_cast<char*>(base)), capacity_(capacity) {}
  // Throws std::length_error when the arena is exhausted (a planning error, not a runtime state).
  [[nodiscard]] void* allocate(std::size_t bytes, std::size_t alignment = 256);
  template <typename T>
  [[nodiscard]] T* allocate_n(std::size_t n)
  {
    return static_cast<T*>(allocate(n * sizeof(T)));
  }
  [[nodiscard]] std::size_t used() const noexcept { return used_; }
  [[nodiscard]] std::size_t capacity() const noexcept { return capacity_; }
  // Bytes an arena needs to hold these sizes, each aligned to 256.
  static std::size_t footprint(std::initializer_list<std::size_t> sizes);

 private:
  char* base_;
  std::size_t capacity_;
  std::size_t used_{0};
};

}  // namespace mcprice
