#include "mcprice/memory/pinned_buffer.hpp"

#include "mcprice/memory/cuda_error.hpp"

#include <utility>

namespace mcprice {

pinned_buffer::pinned_buffer(std::size_t bytes) : bytes_(bytes)
{
  if (bytes_ > 0) { MCPRICE_CUDA_TRY(cudaMallocHost(&data_, bytes_)); }
}

pinned_buffer::~pinned_buffer() { reset(); }

pinned_buffer::pinned_buffer(pinned_buffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), bytes_(std::exchange(other.bytes_, 0))
{
}

pinned_buffer& pinned_buffer::operator=(pinned_buffer&& other) noexcept
{
  if (this != &other) {
    reset();
    data_ = std::exchange(other.data_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

void pinned_buffer::reset() noexcept
{
  if (data_ != nullptr) { MCPRICE_CUDA_TRY_NOTHROW(cudaFreeHost(data_)); }
  data_ = nullptr;
  bytes_ = 0;
}

}  // namespace mcprice
