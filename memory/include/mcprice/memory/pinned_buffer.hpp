#pragma once
// Move-only page-locked host allocation: the target of asynchronous device-to-host copies.
#include <cstddef>

namespace mcprice {

class pinned_buffer {
 public:
  pinned_buffer() noexcept = default;
  explicit pinned_buffer(std::size_t bytes);
  ~pinned_buffer();
  pinned_buffer(pinned_buffer&& other) noexcept;
  pinned_buffer& operator=(pinned_buffer&& other) noexcept;
  pinned_buffer(const pinned_buffer&) = delete;
  pinned_buffer& operator=(const pinned_buffer&) = delete;

  [[nodiscard]] std::size_t size() const noexcept { return bytes_; }
  template <typename T>
  [[nodiscard]] T* as() noexcept { return static_cast<T*>(data_); }

 private:
  void reset() noexcept;
  void* data_{nullptr};
  std::size_t bytes_{0};
};

}  // namespace mcprice
