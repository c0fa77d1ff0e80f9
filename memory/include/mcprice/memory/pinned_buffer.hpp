#pragma once
// Page-locked host memory owned for its scope: staging for asynchronous copies.
#include "mcprice/memory/owning_buffer.hpp"

namespace mcprice {

struct pinned_host_traits {
  static void* allocate(std::size_t bytes);
  static void release(void* p) noexcept;
};

using pinned_buffer = owning_buffer<pinned_host_traits>;

}  // namespace mcprice
