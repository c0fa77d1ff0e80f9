#include "mcprice/memory/device_buffer.hpp"

#include "mcprice/memory/cuda_error.hpp"

#include <utility>

namespace mcprice {

device_buffer::device_buffer(std::size_t bytes) : bytes_(bytes)
{
  if (bytes_ > 0) { MCPRICE_CUDA_TRY(cudaMalloc(&data_, bytes_)); }
}

device_buffer::~device_buffer() { reset(); }

device_buffer::device_buffer(device_buffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), bytes_(std::exchange(other.bytes_, 0))
{
}

device_buffer& device_buffer::operator=(device_buffer&& other) noexcept
{
  if (this != &other) {
    reset();
    data_ = std::exchange(other.data_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

void device_buffer::reset() noexcept
{
  if (data_ != nullptr) { MCPRICE_CUDA_TRY_NOTHROW(cudaFree(data_)); }
  data_ = nullptr;
  bytes_ = 0;
}

}  // namespace mcprice
