#pragma once
// Which kernels of the modules an engine loads at construction: those its options can launch.
// An engine draws with one generator (engine_options::rng) in one precision, and the Sobol and
// double kernels are most of the code. A module whose kernels all share a generator or a
// precision says so (kernel_modules.hpp) and is left out whole where none of them can launch;
// in a module of every variant the kernels are chosen by name (a kernel's load costs about 1 ms
// a MB of its code: docs/benchmarks.md). A kernel left out still loads at its first launch, so
// a selection can cost time, never a result.
#include "mcprice/kernels/launch/kernel_modules.hpp"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace mcprice::kernels {

struct kernel_selection {
  bool quasi{false};             // Sobol points rather than Philox normals
  bool double_precision{false};  // --precision double
};

// What a kernel's demangled name says of it (kernel_traits, kernel_modules.hpp), read from its
// template arguments (the text before the parameter list): whether it draws Sobol points
// (sobol_stream) and whether its paths are double (`double`, a whole word).
[[nodiscard]] kernel_traits traits_of_kernel(std::string_view demangled_name) noexcept;

// Whether an engine of `selection` may launch a kernel of `traits`: Philox engines leave out the
// Sobol kernels and float engines the double ones. The rest stays: a Sobol engine calibrates its
// early exercise on Philox paths, and a double engine's Greeks and early exercise go to the host
// but nothing has measured which float kernels its other families may still use.
[[nodiscard]] bool selected(const kernel_traits& traits, const kernel_selection& selection) noexcept;

// load_kernel_modules (kernel_modules.hpp) restricted to the kernels `selection` may launch.
std::size_t load_kernel_modules(unsigned groups, const kernel_selection& selection);

// The demangled names of the kernels of `groups`' modules that the current context has loaded
// (empty where the driver cannot say, before CUDA 12.4): what the GPU test compares before and
// after an engine's first requests.
[[nodiscard]] std::vector<std::string> loaded_kernels(unsigned groups);

}  // namespace mcprice::kernels
