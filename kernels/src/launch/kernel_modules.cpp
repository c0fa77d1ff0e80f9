#include "mcprice/kernels/launch/kernel_modules.hpp"

#include "mcprice/memory/cuda_error.hpp"

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

namespace mcprice::kernels {
namespace {

struct registered_module {
  const void* anchor;
  kernel_group group;
};

struct module_list {
  std::mutex mutex;
  std::vector<registered_module> modules;
};

// Built on first use: sources register while the library loads, in no set order.
module_list& registered()
{
  static module_list list;
  return list;
}

// The driver calls, reached through the runtime (no libcuda at link time), at the ABI that
// introduced them (CUDA 12.4). Null where the driver lacks one.
template <typename Fn>
Fn entry(const char* symbol)
{
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult found{};
  if (cudaGetDriverEntryPointByVersion(symbol, &fn, 12040, cudaEnableDefault, &found) != cudaSuccess ||
      found != cudaDriverEntryPointSuccess) {
    return nullptr;
  }
  return reinterpret_cast<Fn>(fn);
}

struct module_calls {
  decltype(&::cuFuncGetModule) module_of = entry<decltype(&::cuFuncGetModule)>("cuFuncGetModule");
  decltype(&::cuModuleGetFunctionCount) count =
      entry<decltype(&::cuModuleGetFunctionCount)>("cuModuleGetFunctionCount");
  decltype(&::cuModuleEnumerateFunctions) enumerate =
      entry<decltype(&::cuModuleEnumerateFunctions)>("cuModuleEnumerateFunctions");
  decltype(&::cuFuncLoad) load = entry<decltype(&::cuFuncLoad)>("cuFuncLoad");
  decltype(&::cuFuncGetAttribute) attribute = entry<decltype(&::cuFuncGetAttribute)>("cuFuncGetAttribute");
  [[nodiscard]] bool complete() const noexcept
  {
    return module_of != nullptr && count != nullptr && enumerate != nullptr && load != nullptr && attribute != nullptr;
  }
};

void check(CUresult r, const char* call)
{
  if (r != CUDA_SUCCESS) {
    throw std::runtime_error(std::string("loading the kernels' modules: ") + call + " failed (CUresult " +
                             std::to_string(static_cast<int>(r)) + ")");
  }
}

// Loads the module's kernels; returns how many, and raises `local` to the largest local memory
// one of them needs a thread.
std::size_t load_module(const module_calls& calls, const void* anchor, std::size_t& local)
{
  cudaFunction_t function = nullptr;
  MCPRICE_CUDA_TRY(cudaGetFuncBySymbol(&function, anchor));
  CUmodule module = nullptr;
  check(calls.module_of(&module, reinterpret_cast<CUfunction>(function)), "cuFuncGetModule");
  unsigned int n = 0;
  check(calls.count(&n, module), "cuModuleGetFunctionCount");
  std::vector<CUfunction> functions(n);
  check(calls.enumerate(functions.data(), n, module), "cuModuleEnumerateFunctions");
  for (CUfunction f : functions) {
    check(calls.load(f), "cuFuncLoad");
    int bytes = 0;
    check(calls.attribute(&bytes, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, f), "cuFuncGetAttribute");
    local = std::max(local, static_cast<std::size_t>(bytes));
  }
  return n;
}

// The context's local memory, sized now for the largest kernel: a launch that needs more than
// the context has grows it, and growing waits for every running kernel to end while holding
// the context, so other threads' calls (a stop's copy, an event's poll) wait too. Measured on an
// H200 (mcprice-sync-probe): a first launch needing 16 KiB a thread beside a running kernel took
// until that kernel ended (2.7 s) and held another thread's copy 2.4 s; with the stack limit
// raised first, 0.14 ms. The limit only grows here; its bytes are the driver's, per resident
// thread, as the first launch of that kernel would have taken.
// A reservation above a quarter of the device's free memory is not made (it would squeeze the
// scratch pool): such a kernel grows it at its first launch instead.
void reserve_local_memory(std::size_t largest_local)
{
  constexpr std::size_t default_stack = 1024;
  std::size_t const want = (largest_local + default_stack + 255) / 256 * 256;
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

}  // namespace

std::size_t load_kernel_modules(unsigned groups)
{
  static module_calls const calls;
  if (!calls.complete()) return 0;
  std::vector<registered_module> modules;
  {
    std::lock_guard<std::mutex> lock(registered().mutex);
    modules = registered().modules;
  }
  std::size_t loaded = 0;
  std::size_t local = 0;
  for (auto const& m : modules) {
    if ((groups & static_cast<unsigned>(m.group)) != 0U) loaded += load_module(calls, m.anchor, local);
  }
  reserve_local_memory(local);
  return loaded;
}

namespace detail {

bool register_kernel_module(const void* anchor, kernel_group group) noexcept
{
  try {
    std::lock_guard<std::mutex> lock(registered().mutex);
    registered().modules.push_back({anchor, group});
    return true;
  } catch (...) {
    return false;  // out of memory while the library loads: its kernels load at first launch
  }
}

}  // namespace detail
}  // namespace mcprice::kernels
