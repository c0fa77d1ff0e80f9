#include "mcprice/memory/device_info.hpp"

#include "mcprice/memory/cuda_error.hpp"

namespace mcprice {

int usable_device_count() noexcept
{
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return count;
}

device_info query_device(int ordinal)
{
  cudaDeviceProp prop{};
  MCPRICE_CUDA_TRY(cudaGetDeviceProperties(&prop, ordinal));
  device_info info;
  info.ordinal = ordinal;
  info.name = prop.name;
  info.cc_major = prop.major;
  info.cc_minor = prop.minor;
  info.multiprocessors = prop.multiProcessorCount;
  MCPRICE_CUDA_TRY(cudaDriverGetVersion(&info.driver_version));
  MCPRICE_CUDA_TRY(cudaRuntimeGetVersion(&info.runtime_version));
  return info;
}

}  // namespace mcprice
