#pragma once
// The CPU backend's quasi-random stream: Sobol points from the library's host copy of cuRAND's
// direction numbers (sobol_points.hpp).
#include "mcprice/kernels/rng/sobol_stream.hpp"

#include <cstdint>

namespace mcprice::rng {

// sobol_dimensions x sobol_direction_bits numbers, dimension-major; static storage.
const std::uint32_t* sobol_direction_table() noexcept;

// sobol_dimensions x sobol_nibble_words numbers (sobol_points.hpp), built from the direction
// table on first use (9.8 MiB); what the streams read, on the host and, copied, on a GPU.
const std::uint32_t* sobol_nibble_table();

struct host_sobol_directions {
  static const std::uint32_t* get() { return sobol_nibble_table(); }
};

template <int MaxFactors, typename Real = float>
using host_sobol_stream = sobol_stream<host_sobol_directions, MaxFactors, Real>;

}  // namespace mcprice::rng
