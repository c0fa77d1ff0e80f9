#pragma once
// The kernels' modules, loaded before the first request, with the context's local memory sized
// for the largest of their kernels. A first launch that needs more local memory a thread than
// the context holds waits for every running kernel to end and holds the context meanwhile, so
// every other thread's CUDA call waits too: on an H100 the first Greek jobs of a large book took
// until the running jobs ended to queue, and their callers' stops went out seconds late
// (docs/reliability.md). An engine therefore loads every kernel it may launch when it starts,
// with the device idle (CUDA otherwise loads each at its first launch), and raises the stack
// limit to cover them. Each kernel source names its module and group with MCPRICE_KERNEL_MODULE
// (kernel_module.cuh), and the modules load on threads of their own.
#include <cstddef>

namespace mcprice::kernels {

// What a module holds, as a bit of load_kernel_modules' mask.
enum class kernel_group : unsigned {
  prices = 1U,       // the fused price kernels of every family, every precision and generator
  greeks = 2U,       // the Greek lanes (engine_options::greeks)
  two_phase = 4U,    // the two-phase route (--route two-phase)
  exercise = 8U,     // early exercise: calibration, regressions and pricing
  reductions = 16U,  // the segmented sums (every request)
};

[[nodiscard]] constexpr unsigned operator|(kernel_group a, kernel_group b) noexcept
{
  return static_cast<unsigned>(a) | static_cast<unsigned>(b);
}
[[nodiscard]] constexpr unsigned operator|(unsigned a, kernel_group b) noexcept { return a | static_cast<unsigned>(b); }

// What a kernel draws and computes in: Sobol points (else Philox normals), double paths (else
// float). kernel_selection.hpp reads it from a kernel's name; a module whose kernels all share a
// trait says so when it registers (MCPRICE_KERNEL_MODULE_OF), and an engine that launches none
// of them leaves the whole module out, its library image never read (the library load is paid
// per module, whatever is taken from it: docs/benchmarks.md).
struct kernel_traits {
  bool quasi{false};
  bool double_precision{false};
};
inline constexpr kernel_traits every_kernel_quasi{true, false};
inline constexpr kernel_traits every_kernel_double{false, true};

// Loads every kernel of the registered modules whose group is in `groups` into the current
// device's context, raises the stack limit to their largest local memory plus 1 KiB, and
// returns how many kernels that was (loaded before or now). Where the driver cannot enumerate a
// module's kernels (before CUDA 12.4) it does nothing and returns 0: kernels then load at their
// first launch, as before. Throws (cuda_error or std::runtime_error) naming the failed call, or
// where the reservation would take more than a quarter of the device's free memory.
std::size_t load_kernel_modules(unsigned groups);

namespace detail {
// Called by MCPRICE_KERNEL_MODULE at the library's load: `anchor` is a kernel of the module,
// `common` what all its kernels share (nothing, for a module of every variant).
bool register_kernel_module(const void* anchor, kernel_group group, kernel_traits common) noexcept;
}  // namespace detail

}  // namespace mcprice::kernels
