#pragma once
// The fixed-order sum of a job's block partials per segment (work_plan.hpp), for the moments and
// for each family's Greek sums. Plain C++ header.
#include "mcprice/kernels/greeks/basket_greeks.hpp"
#include "mcprice/kernels/greeks/european_greeks.hpp"
#include "mcprice/kernels/greeks/path_greeks.hpp"
#include "mcprice/kernels/moments.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace mcprice::kernels {

// A job's segments: segment i holds the request's canonical blocks [offsets[i], offsets[i + 1]),
// of which the job's partials start at block `base`.
struct segment_offsets {
  const std::int64_t* offsets{nullptr};
  std::int64_t base{0};
  int count{0};
};

// out[i] = the sum of segment i's partials (layout::partials_per_block a block), in a fixed order.
// Call with temp == nullptr to get the temporary storage size in temp_bytes. Sums: moments,
// greek_moments, path_greek_moments or basket_greek_moments.
template <typename Sums>
void segmented_sum(void* temp, std::size_t& temp_bytes, const Sums* partials, segment_offsets segments, Sums* out,
                   cudaStream_t stream);

}  // namespace mcprice::kernels
