#pragma once
// Names the including source's module for load_kernel_modules (kernel_modules.hpp): an empty
// kernel whose address finds the module, registered under `group` when the library loads.
// Use once per kernel source, inside namespace mcprice::kernels.
#include "mcprice/kernels/launch/kernel_modules.hpp"

#define MCPRICE_KERNEL_MODULE(group)                                                                                   \
  namespace {                                                                                                          \
  __global__ void kernel_module_anchor() {}                                                                            \
  [[maybe_unused]] bool const kernel_module_registered =                                                               \
      ::mcprice::kernels::detail::register_kernel_module(reinterpret_cast<const void*>(&kernel_module_anchor), group); \
  }
