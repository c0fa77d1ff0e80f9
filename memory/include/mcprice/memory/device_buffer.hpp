#pragma once
// Move-only, untyped device allocation made with cudaMalloc. The spine's only device memory;
// the bucketed stream-ordered scratch pool replaces it for per-job scratch.
#include <cstddef>

namespace mcprice {

class device_buffer {
 public:
  device_buffer() noexcept = default;
  explicit device_buffer(std::size_t bytes);
  ~device_buffer();
  device_buffer(device_buffer&& other) noexcept;
  device_buffer& operator=(device_buffer&& other) noexcept;
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;

  [[nodiscard]] void* data() noexcept { return data_; }
  [[nodiscard]] const void* data() const noexcept { return data_; }
  [[nodiscard]] std::size_t size() const noexcept { return bytes_; }
  template <typename T>
  [[nodiscard]] T* as() noexcept { return static_cast<T*>(data_); }
  template <typename T>
  [[nodiscard]] const T* as() const noexcept { return static_cast<const T*>(data_); }

 private:
  void reset() noexcept;
  void* data_{nullptr};
  std::size_t bytes_{0};
};

}  // namespace mcprice
