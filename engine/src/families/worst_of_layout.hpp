#pragma once
// The two-phase layout every worst-of family shares: each sample stores its sides' worst
// performances and variances (kernels::worst_of_rows_per_sample), one lane a sample.
#include "families/family_batch.hpp"
#include "mcprice/kernels/launch/worst_of.hpp"

#include <algorithm>
#include <vector>

namespace mcprice::detail {

template <typename Record>
two_phase_layout worst_of_two_phase_layout(const std::vector<Record>& records)
{
  int rows = 0;
  for (auto const& t : records) rows = std::max(rows, kernels::worst_of_rows_per_sample(t));
  return {kernels::path_samples_per_block * rows, kernels::path_samples_per_block, rows};
}

}  // namespace mcprice::detail
