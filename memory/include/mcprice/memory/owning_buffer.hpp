#pragma once
// One move-only owner for memory that a pair of functions allocates and frees (cudaMalloc,
// cudaMallocHost). Traits::allocate throws on failure; Traits::release never throws.
#include <cstddef>
#include <utility>

namespace mcprice {

template <typename Traits>
class owning_buffer {
 public:
  owning_buffer() noexcept = default;
  explicit owning_buffer(std::size_t bytes) : data_(bytes > 0 ? Traits::allocate(bytes) : nullptr), bytes_(bytes) {}
  ~owning_buffer() { reset(); }
  owning_buffer(owning_buffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), bytes_(std::exchange(other.bytes_, 0))
  {
  }
  owning_buffer& operator=(owning_buffer&& other) noexcept
  {
    if (this != &other) {
      reset();
      data_ = std::exchange(other.data_, nullptr);
      bytes_ = std::exchange(other.bytes_, 0);
    }
    return *this;
  }
  owning_buffer(const owning_buffer&) = delete;
  owning_buffer& operator=(const owning_buffer&) = delete;

  [[nodiscard]] void* data() noexcept { return data_; }
  [[nodiscard]] const void* data() const noexcept { return data_; }
  [[nodiscard]] std::size_t size() const noexcept { return bytes_; }
  template <typename T>
  [[nodiscard]] T* as() noexcept
  {
    return static_cast<T*>(data_);
  }
  template <typename T>
  [[nodiscard]] const T* as() const noexcept
  {
    return static_cast<const T*>(data_);
  }

 private:
  void reset() noexcept
  {
    if (data_ != nullptr) Traits::release(data_);
    data_ = nullptr;
    bytes_ = 0;
  }
  void* data_{nullptr};
  std::size_t bytes_{0};
};

}  // namespace mcprice
