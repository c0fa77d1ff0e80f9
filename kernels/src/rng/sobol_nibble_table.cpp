#include "mcprice/kernels/rng/host_sobol_stream.hpp"

#include <vector>

namespace mcprice::rng {

const std::uint32_t* sobol_nibble_table()
{
  // Built once, thread-safely (a function-local static), then read-only.
  static std::vector<std::uint32_t> const table = [] {
    std::vector<std::uint32_t> t(static_cast<std::size_t>(sobol_dimensions) * sobol_nibble_words);
    fill_sobol_nibbles(sobol_direction_table(), sobol_dimensions, t.data());
    return t;
  }();
  return table.data();
}

}  // namespace mcprice::rng
