#include "mcprice/memory/stream.hpp"

#include "mcprice/memory/cuda_error.hpp"

#include <utility>

namespace mcprice {

void stream_view::synchronize() const { MCPRICE_CUDA_TRY(cudaStreamSynchronize(stream_)); }

stream::stream() { MCPRICE_CUDA_TRY(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }

stream::~stream() { reset(); }

stream::stream(stream&& other) noexcept : stream_(std::exchange(other.stream_, nullptr)) {}

stream& stream::operator=(stream&& other) noexcept
{
  if (this != &other) {
    reset();
    stream_ = std::exchange(other.stream_, nullptr);
  }
  return *this;
}

void stream::reset() noexcept
{
  if (stream_ != nullptr) { MCPRICE_CUDA_TRY_NOTHROW(cudaStreamDestroy(stream_)); }
  stream_ = nullptr;
}

}  // namespace mcprice
