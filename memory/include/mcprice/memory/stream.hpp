#pragma once
// Move-only owner of a non-blocking CUDA stream, and the non-owning stream_view that every
// stream-ordered API takes (the RMM convention: the stream is always explicit).
#include "mcprice/memory/unique_handle.hpp"

#include <cuda_runtime_api.h>

namespace mcprice {

class stream_view {
 public:
  constexpr stream_view() noexcept = default;
  constexpr explicit stream_view(cudaStream_t s) noexcept : stream_(s) {}
  [[nodiscard]] constexpr cudaStream_t value() const noexcept { return stream_; }
  void synchronize() const;

 private:
  cudaStream_t stream_{nullptr};
};

namespace detail {
void destroy_stream(cudaStream_t s) noexcept;
}

class stream {
 public:
  stream();  // cudaStreamNonBlocking: never implicitly ordered with the legacy default stream

  [[nodiscard]] stream_view view() const noexcept { return stream_view{stream_.get()}; }
  [[nodiscard]] cudaStream_t value() const noexcept { return stream_.get(); }
  void synchronize() const { view().synchronize(); }

 private:
  unique_handle<cudaStream_t, detail::destroy_stream> stream_;
};

}  // namespace mcprice
