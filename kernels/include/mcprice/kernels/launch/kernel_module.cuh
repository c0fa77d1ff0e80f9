#pragma once
// Names the including source's module for load_kernel_modules (kernel_modules.hpp): an empty
// kernel whose address finds the module, registered under `group` when the library loads.
// Use once per kernel source, inside namespace mcprice::kernels. MCPRICE_KERNEL_MODULE_OF also
// says what every kernel of the source shares (every_kernel_quasi, every_kernel_double), so that
// an engine that launches none of them never loads the module.
#include "mcprice/kernels/launch/kernel_modules.hpp"

#define MCPRICE_KERNEL_MODULE_OF(group, common)                                                     \
  namespace {                                                                                       \
  __global__ void kernel_module_anchor() {}                                                         \
  [[maybe_unused]] bool const kernel_module_registered = ::mcprice::kernels::detail::register_kernel_module( \
      reinterpret_cast<const void*>(&kernel_module_anchor), group, common);                         \
  }

#define MCPRICE_KERNEL_MODULE(group) MCPRICE_KERNEL_MODULE_OF(group, ::mcprice::kernels::kernel_traits{})
