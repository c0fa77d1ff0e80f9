#pragma once
// What the process can see of the GPUs, asked without throwing: "no GPU" is a normal answer.
#include <string>

namespace mcprice {

struct device_info {
  int ordinal{-1};
  std::string name;
  int cc_major{0};
  int cc_minor{0};
  int multiprocessors{0};
  int driver_version{0};   // as cudaDriverGetVersion: 1000*major + 10*minor
  int runtime_version{0};  // as cudaRuntimeGetVersion
};

// Number of usable CUDA devices; 0 when there is no GPU or no driver.
int usable_device_count() noexcept;

// Details of one device (throws cuda_error when the ordinal is not usable).
device_info query_device(int ordinal);

}  // namespace mcprice
