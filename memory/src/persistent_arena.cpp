#include "mcprice/memory/persistent_arena.hpp"

#include <stdexcept>
#include <string>

namespace mcprice {

persistent_arena::persistent_arena(std::size_t capacity) : buffer_(capacity) {}

void* persistent_arena::allocate(std::size_t bytes, std::size_t alignment)
{
  std::size_t const start = (used_ + alignment - 1) / alignment * alignment;
  if (start + bytes > buffer_.size()) {
    throw std::length_error("persistent arena of " + std::to_string(buffer_.size()) + " bytes cannot fit " +
                            std::to_string(bytes) + " more bytes (" + std::to_string(used_) + " used)");
  }
  used_ = start + bytes;
  return static_cast<char*>(buffer_.data()) + start;
}

std::size_t persistent_arena::footprint(std::initializer_list<std::size_t> sizes)
{
  std::size_t total = 0;
  for (std::size_t s : sizes) total += (s + 255) / 256 * 256;
  return total;
}

}  // namespace mcprice
