#include "mcprice/memory/cuda_error.hpp"
#include "pattern_kernels.hpp"

namespace mcprice::testing {
namespace {

__global__ void write_kernel(std::uint32_t* p, std::size_t n, std::uint32_t tag)
{
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    p[i] = tag ^ static_cast<std::uint32_t>(i);
  }
}

__global__ void check_kernel(const std::uint32_t* p, std::size_t n, std::uint32_t tag, int passes,
                             unsigned long long* mismatches)
{
  unsigned long long bad = 0;
  for (int pass = 0; pass < passes; ++pass) {
    for (std::size_t i = threadIdx.x; i < n; i += blockDim.x) {
      if (static_cast<volatile const std::uint32_t*>(p)[i] != (tag ^ static_cast<std::uint32_t>(i))) ++bad;
    }
  }
  if (bad != 0) atomicAdd(mismatches, bad);
}

}  // namespace

void write_pattern(std::uint32_t* p, std::size_t n, std::uint32_t tag, cudaStream_t s)
{
  write_kernel<<<264, 256, 0, s>>>(p, n, tag);
  MCPRICE_CHECK_LAUNCH("write_kernel");
}

void check_pattern(const std::uint32_t* p, std::size_t n, std::uint32_t tag, int passes, unsigned long long* mismatches,
                   cudaStream_t s)
{
  check_kernel<<<1, 256, 0, s>>>(p, n, tag, passes, mismatches);
  MCPRICE_CHECK_LAUNCH("check_kernel");
}

}  // namespace mcprice::testing
