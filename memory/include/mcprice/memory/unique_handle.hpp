#pragma once
// Move-only ownership of one CUDA handle (stream, event, memory pool): the destroy call runs
// once, from the destructor, and never throws. Owners wrap it and get moves for free.
#include <utility>

namespace mcprice {

template <typename Handle, void (*Destroy)(Handle) noexcept>
class unique_handle {
 public:
  unique_handle() noexcept = default;
  explicit unique_handle(Handle h) noexcept : handle_(h) {}
  ~unique_handle() { reset(); }
  unique_handle(unique_handle&& other) noexcept : handle_(std::exchange(other.handle_, Handle{})) {}
  unique_handle& operator=(unique_handle&& other) noexcept
  {
    if (this != &other) {
      reset();
      handle_ = std::exchange(other.handle_, Handle{});
    }
    return *this;
  }
  unique_handle(const unique_handle&) = delete;
  unique_handle& operator=(const unique_handle&) = delete;

  [[nodiscard]] Handle get() const noexcept { return handle_; }

 private:
  void reset() noexcept
  {
    if (handle_ != Handle{}) Destroy(handle_);
    handle_ = Handle{};
  }
  Handle handle_{};
};

}  // namespace mcprice
