#pragma once
// The lane of a family whose samples each take a Philox subsequence of their own (path,
// Heston and multi-asset trades): the lane's groups in order, one sample each, summed in double.
#include "mcprice/kernels/layout/canonical_layout.hpp"
#include "mcprice/kernels/moments.hpp"

#include <cstdint>

namespace mcprice {

// A family whose samples need more than two normals: one sample per lane group.
inline constexpr int own_subsequence_normals = 4;

// sample(subsequence) -> the sample's value.
template <typename Sample>
MCPRICE_HD MCPRICE_INLINE moments own_subsequence_lane(std::int64_t samples, std::int64_t block, int lane,
                                                       Sample&& sample)
{
  constexpr int d = own_subsequence_normals;
  static_assert(layout::samples_per_group(d) == 1, "one sample per lane group");
  moments m{};
  for (int g = 0; g < layout::groups_per_lane(d); ++g) {
    std::int64_t const group = layout::group_index(block, g, lane, d);
    if (group >= samples) break;
    auto const value = sample(static_cast<std::uint64_t>(group));
    m.add_group(value, decltype(value)(0), 1);
  }
  return m;
}

}  // namespace mcprice
