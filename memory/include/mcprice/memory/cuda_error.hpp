#pragma once
// Every CUDA call is checked; a failure becomes a cuda_error naming the call, the source
// position and the CUDA error name, so a log line alone says what broke and where.
#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace mcprice {

class cuda_error : public std::runtime_error {
 public:
  cuda_error(cudaError_t code, const char* call, const char* file, int line);
  [[nodiscard]] cudaError_t code() const noexcept { return code_; }

 private:
  cudaError_t code_;
};

namespace detail {
// Destructors must not throw; they report through this instead.
void report_cuda_failure_in_destructor(cudaError_t code, const char* call, const char* file, int line) noexcept;
}  // namespace detail

}  // namespace mcprice

#define MCPRICE_CUDA_TRY(call)                                                 \
  do {                                                                         \
    cudaError_t const mcprice_status_ = (call);                                \
    if (mcprice_status_ != cudaSuccess) {                                      \
      (void)cudaGetLastError();                                                \
      throw ::mcprice::cuda_error(mcprice_status_, #call, __FILE__, __LINE__); \
    }                                                                          \
  } while (0)

// After a <<<>>> launch (kernel_name: a string literal): configuration errors surface here,
// named after the kernel, not at the next synchronisation.
#define MCPRICE_CHECK_LAUNCH(kernel_name)                                                         \
  do {                                                                                            \
    cudaError_t const mcprice_status_ = cudaGetLastError();                                       \
    if (mcprice_status_ != cudaSuccess) {                                                         \
      throw ::mcprice::cuda_error(mcprice_status_, "launch of " kernel_name, __FILE__, __LINE__); \
    }                                                                                             \
  } while (0)

#define MCPRICE_CUDA_TRY_NOTHROW(call)                                                                  \
  do {                                                                                                  \
    cudaError_t const mcprice_status_ = (call);                                                         \
    if (mcprice_status_ != cudaSuccess) {                                                               \
      ::mcprice::detail::report_cuda_failure_in_destructor(mcprice_status_, #call, __FILE__, __LINE__); \
    }                                                                                                   \
  } while (0)
