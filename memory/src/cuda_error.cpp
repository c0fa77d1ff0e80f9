#include "mcprice/memory/cuda_error.hpp"

#include <cstdio>

namespace mcprice {
namespace {
std::string describe(cudaError_t code, const char* call, const char* file, int line)
{
  return std::string("CUDA error ") + cudaGetErrorName(code) + " (" + cudaGetErrorString(code) + ") from " + call +
         " at " + file + ":" + std::to_string(line);
}
}  // namespace

cuda_error::cuda_error(cudaError_t code, const char* call, const char* file, int line)
    : std::runtime_error(describe(code, call, file, line)), code_(code)
{
}

namespace detail {
void report_cuda_failure_in_destructor(cudaError_t code, const char* call, const char* file, int line) noexcept
{
  (void)cudaGetLastError();
  std::fprintf(stderr, "mcprice: %s (ignored in a destructor)\n", describe(code, call, file, line).c_str());
}
}  // namespace detail
}  // namespace mcprice
