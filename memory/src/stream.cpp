#include "mcprice/memory/stream.hpp"

#include "mcprice/memory/cuda_error.hpp"

namespace mcprice {

void stream_view::synchronize() const { MCPRICE_CUDA_TRY(cudaStreamSynchronize(stream_)); }

namespace detail {
void destroy_stream(cudaStream_t s) noexcept { MCPRICE_CUDA_TRY_NOTHROW(cudaStreamDestroy(s)); }
}  // namespace detail

stream::stream()
{
  cudaStream_t s = nullptr;
  MCPRICE_CUDA_TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  stream_ = decltype(stream_)(s);
}

}  // namespace mcprice
