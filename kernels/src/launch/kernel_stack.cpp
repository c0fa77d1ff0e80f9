#include "mcprice/kernels/launch/kernel_stack.hpp"

#include "mcprice/kernels/launch/kernel_modules.hpp"
#include "mcprice/memory/cuda_error.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace mcprice::kernels {
namespace {

struct group_local {
  kernel_group group;
  std::size_t bytes;
};

// CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, the largest among each group's kernels, built for sm_90
// with nvcc 13.0 and read on an H100 by the GPU test that checks this table (a kernel that
// grows past its line fails it, naming the group and the bytes).
// clang-format off
constexpr group_local measured[] = {
    {kernel_group::prices, 4512},
    {kernel_group::greeks, 3648},
    {kernel_group::two_phase, 1200},
    {kernel_group::exercise, 4880},
    {kernel_group::reductions, 3008},
};
// clang-format on

}  // namespace

std::size_t reserved_local_bytes(unsigned groups) noexcept
{
  std::size_t most = 0;
  for (auto const& g : measured) {
    if ((groups & static_cast<unsigned>(g.group)) != 0U) most = std::max(most, g.bytes);
  }
  return most;
}

// Measured on an H200 (mcprice-sync-probe, docs/benchmarks.md): a first launch needing 16 KiB a
// thread beside a running kernel took until that kernel ended (2.7 s) and held another thread's
// copy 2.4 s; with the stack limit raised first, 0.14 ms. A reservation above a quarter of the
// free memory is refused rather than made: it would squeeze the scratch pool.
void reserve_local_memory(std::size_t local_bytes)
{
  constexpr std::size_t default_stack = 1024;
  std::size_t const want = (local_bytes + default_stack + 255) / 256 * 256;
  std::size_t now = 0;
  MCPRICE_CUDA_TRY(cudaDeviceGetLimit(&now, cudaLimitStackSize));
  if (want <= now) return;
  int device = 0;
  int sms = 0;
  int threads = 0;
  MCPRICE_CUDA_TRY(cudaGetDevice(&device));
  MCPRICE_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  MCPRICE_CUDA_TRY(cudaDeviceGetAttribute(&threads, cudaDevAttrMaxThreadsPerMultiProcessor, device));
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
  MCPRICE_CUDA_TRY(cudaMemGetInfo(&free_bytes, &total_bytes));
  auto const resident = static_cast<std::size_t>(sms) * static_cast<std::size_t>(threads);
  if (want * resident > free_bytes / 4) {
    throw std::runtime_error("reserving " + std::to_string(want) + " bytes of local memory a thread for " +
                             std::to_string(resident) + " resident threads would take more than a quarter of the " +
                             std::to_string(free_bytes) + " free bytes");
  }
  MCPRICE_CUDA_TRY(cudaDeviceSetLimit(cudaLimitStackSize, want));
}

}  // namespace mcprice::kernels
