#include "mcprice/kernels/launch/kernel_modules.hpp"
#include "mcprice/kernels/launch/kernel_selection.hpp"
#include "mcprice/kernels/launch/kernel_stack.hpp"

#include "mcprice/memory/cuda_error.hpp"

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cxxabi.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <exception>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

namespace mcprice::kernels {
namespace {

struct registered_module {
  const void* anchor;
  kernel_group group;
  kernel_traits common;  // what every kernel of the module shares
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
  decltype(&::cuFuncGetName) name = entry<decltype(&::cuFuncGetName)>("cuFuncGetName");
  decltype(&::cuFuncIsLoaded) is_loaded = entry<decltype(&::cuFuncIsLoaded)>("cuFuncIsLoaded");
  [[nodiscard]] bool complete() const noexcept
  {
    return module_of != nullptr && count != nullptr && enumerate != nullptr && load != nullptr && attribute != nullptr;
  }
};

// Looked up once per process: the entry points do not change while the driver is loaded.
const module_calls& driver_calls()
{
  static module_calls const calls;
  return calls;
}

void check(CUresult r, const char* call)
{
  if (r != CUDA_SUCCESS) {
    throw std::runtime_error(std::string("loading the kernels' modules: ") + call + " failed (CUresult " +
                             std::to_string(static_cast<int>(r)) + ")");
  }
}

// The kernel's demangled name; empty where the driver or the demangler cannot give it.
std::string name_of(const module_calls& calls, CUfunction f)
{
  const char* mangled = nullptr;
  if (calls.name == nullptr || calls.name(&mangled, f) != CUDA_SUCCESS || mangled == nullptr) return {};
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> const demangled(abi::__cxa_demangle(mangled, nullptr, nullptr, &status),
                                                              &std::free);
  return status == 0 && demangled ? std::string(demangled.get()) : std::string(mangled);
}

// Whether `selection` (none: every kernel) takes the kernel; a kernel without a name is taken.
bool takes(const module_calls& calls, CUfunction f, const kernel_selection* selection)
{
  if (selection == nullptr) return true;
  std::string const name = name_of(calls, f);
  return name.empty() || selected(traits_of_kernel(name), *selection);
}

// The kernels of the module that `anchor` (one of its kernels) is in.
std::vector<CUfunction> module_functions(const module_calls& calls, const void* anchor)
{
  cudaFunction_t function = nullptr;
  MCPRICE_CUDA_TRY(cudaGetFuncBySymbol(&function, anchor));
  CUmodule module = nullptr;
  check(calls.module_of(&module, reinterpret_cast<CUfunction>(function)), "cuFuncGetModule");
  unsigned int n = 0;
  check(calls.count(&n, module), "cuModuleGetFunctionCount");
  std::vector<CUfunction> functions(n);
  check(calls.enumerate(functions.data(), n, module), "cuModuleEnumerateFunctions");
  return functions;
}

// The anchors of the registered modules in `groups` that hold a kernel `selection` (none: every
// kernel) may take.
std::vector<const void*> anchors_in(unsigned groups, const kernel_selection* selection = nullptr)
{
  std::lock_guard<std::mutex> lock(registered().mutex);
  std::vector<const void*> anchors;
  for (auto const& m : registered().modules) {
    if ((groups & static_cast<unsigned>(m.group)) == 0U) continue;
    if (selection != nullptr && !selected(m.common, *selection)) continue;
    anchors.push_back(m.anchor);
  }
  return anchors;
}

// Loads the module's kernels that `selection` takes; returns how many, and raises `local` to the
// largest local memory one of them needs a thread.
std::size_t load_module(const module_calls& calls, const void* anchor, const kernel_selection* selection,
                        std::size_t& local)
{
  std::size_t taken = 0;
  for (CUfunction f : module_functions(calls, anchor)) {
    if (!takes(calls, f, selection)) continue;
    ++taken;
    check(calls.load(f), "cuFuncLoad");
    int bytes = 0;
    check(calls.attribute(&bytes, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, f), "cuFuncGetAttribute");
    local = std::max(local, static_cast<std::size_t>(bytes));
  }
  return taken;
}

// How many modules load at once: the driver reads each module's image on the host (the
// library load is most of an engine's construction, docs/benchmarks.md), so modules load on
// threads of their own. MCPRICE_KERNEL_LOAD_THREADS=1 loads them one after another, to measure.
unsigned load_threads(std::size_t modules)
{
  constexpr unsigned most = 8;
  unsigned threads = std::min(most, std::max(1U, std::thread::hardware_concurrency()));
  const char* v = std::getenv("MCPRICE_KERNEL_LOAD_THREADS");
  if (int const asked = v != nullptr ? std::atoi(v) : 0; asked > 0) threads = static_cast<unsigned>(asked);
  return static_cast<unsigned>(std::min<std::size_t>(threads, modules));
}

// Loads the kernels `selection` (none: every kernel) takes of every registered module in
// `groups`; returns how many, and the most local memory a thread that one of them takes in
// `local`. Nothing where the driver cannot enumerate.
std::size_t load_groups(unsigned groups, const kernel_selection* selection, std::size_t& local)
{
  module_calls const& calls = driver_calls();
  if (!calls.complete()) return 0;
  std::vector<const void*> const anchors = anchors_in(groups, selection);
  std::vector<std::size_t> taken(anchors.size(), 0);
  std::vector<std::size_t> locals(anchors.size(), 0);
  std::vector<std::exception_ptr> errors(anchors.size());
  int device = 0;
  MCPRICE_CUDA_TRY(cudaGetDevice(&device));
  std::atomic<std::size_t> next{0};
  auto const work = [&] {
    for (std::size_t i = next++; i < anchors.size(); i = next++) {
      try {
        MCPRICE_CUDA_TRY(cudaSetDevice(device));  // a new thread's runtime starts on device 0
        taken[i] = load_module(calls, anchors[i], selection, locals[i]);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  };
  std::vector<std::thread> helpers;
  unsigned const threads = load_threads(anchors.size());
  try {
    for (unsigned t = 1; t < threads; ++t) helpers.emplace_back(work);
  } catch (const std::system_error&) {
    // no more threads: this one and those started take the rest
  }
  work();
  for (auto& h : helpers) h.join();
  for (auto const& e : errors) {
    if (e) std::rethrow_exception(e);
  }
  for (std::size_t const b : locals) local = std::max(local, b);
  std::size_t loaded = 0;
  for (std::size_t const n : taken) loaded += n;
  return loaded;
}

// load_groups, then the stack limit raised to cover what was loaded.
std::size_t load_and_reserve(unsigned groups, const kernel_selection* selection)
{
  std::size_t local = 0;
  std::size_t const loaded = load_groups(groups, selection, local);
  if (loaded > 0) reserve_local_memory(local);
  return loaded;
}

}  // namespace

std::size_t load_kernel_modules(unsigned groups) { return load_and_reserve(groups, nullptr); }

std::size_t load_kernel_modules(unsigned groups, const kernel_selection& selection)
{
  return load_and_reserve(groups, &selection);
}

std::vector<std::string> loaded_kernels(unsigned groups)
{
  module_calls const& calls = driver_calls();
  std::vector<std::string> names;
  if (!calls.complete() || calls.is_loaded == nullptr) return names;
  for (const void* anchor : anchors_in(groups)) {
    for (CUfunction f : module_functions(calls, anchor)) {
      CUfunctionLoadingState state{};
      check(calls.is_loaded(&state, f), "cuFuncIsLoaded");
      if (state == CU_FUNCTION_LOADING_STATE_LOADED) names.push_back(name_of(calls, f));
    }
  }
  return names;
}

std::size_t loaded_local_bytes(unsigned groups)
{
  std::size_t local = 0;
  (void)load_groups(groups, nullptr, local);
  return local;
}

namespace detail {

bool register_kernel_module(const void* anchor, kernel_group group, kernel_traits common) noexcept
{
  try {
    std::lock_guard<std::mutex> lock(registered().mutex);
    registered().modules.push_back({anchor, group, common});
    return true;
  } catch (...) {
    return false;  // out of memory while the library loads: its kernels load at first launch
  }
}

}  // namespace detail
}  // namespace mcprice::kernels
