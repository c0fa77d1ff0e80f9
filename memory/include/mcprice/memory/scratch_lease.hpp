#pragma once
// A job's hold on the scratch pool, bounded by a byte cap. An allocation past the cap throws
// scratch_cap_exceeded and never reaches the pool. Everything still held is returned, in
// stream order, when the lease ends.
#include "mcprice/memory/memory_resource.hpp"

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace mcprice {

class scratch_lease {
 public:
  // cap 0 = no cap. on_rejection is told of each cap rejection (the pool's statistics).
  scratch_lease(memory_resource& pool, stream_view s, std::size_t cap, std::string job,
                std::function<void()> on_rejection = {});
  ~scratch_lease();
  scratch_lease(const scratch_lease&) = delete;
  scratch_lease& operator=(const scratch_lease&) = delete;

  [[nodiscard]] void* allocate(std::size_t bytes);
  template <typename T>
  [[nodiscard]] T* allocate_n(std::size_t n) { return static_cast<T*>(allocate(n * sizeof(T))); }
  void deallocate(void* p) noexcept;
  void release_all() noexcept;

  [[nodiscard]] std::size_t in_use() const noexcept { return in_use_; }
  [[nodiscard]] std::size_t cap() const noexcept { return cap_; }
  [[nodiscard]] stream_view stream() const noexcept { return stream_; }
  // Bytes a request counts against the cap: rounded up to 256, the pool's granule.
  static constexpr std::size_t charged(std::size_t bytes) { return (bytes + 255) / 256 * 256; }

 private:
  struct held {
    void* ptr;
    std::size_t bytes;
  };
  memory_resource& pool_;
  stream_view stream_;
  std::size_t cap_;
  std::string job_;
  std::function<void()> on_rejection_;
  std::vector<held> held_;
  std::size_t in_use_{0};
};

}  // namespace mcprice
