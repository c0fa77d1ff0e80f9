#include "mcprice/memory/arena_scratch_resource.hpp"

#include "mcprice/memory/memory_errors.hpp"

#include <stdexcept>
#include <string>

namespace mcprice {

void* arena_scratch_resource::do_allocate(std::size_t bytes, stream_view /*s*/)
{
  try {
    return arena_.allocate(bytes);
  } catch (const std::length_error&) {
    throw out_of_memory("arena scratch", bytes, arena_.used(), bytes_);
  }
}

}  // namespace mcprice
