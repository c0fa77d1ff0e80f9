#include "mcprice/memory/persistent_arena.hpp"

#include <stdexcept>
#include <string>

namespace mcprice {

void* arena_view::allocate(std::size_t bytes, std::size_t alignment)
{
  std::size_t const start = (used_ + alignment - 1) / alignment * alignment;
  if (start + bytes > capacity_) {
    throw std::length_error("arena of " + std::to_string(capacity_) + " bytes cannot fit " + std::to_string(bytes) +
                            " more bytes (" + std::to_string(used_) + " used)");
  }
  used_ = start + bytes;
  return base_ + start;
}

std::size_t arena_view::footprint(std::initializer_list<std::size_t> sizes)
{
  std::size_t total = 0;
  for (std::size_t s : sizes) total += (s + 255) / 256 * 256;
  return total;
}

}  // namespace mcprice
