#pragma once
// What the worst-of families share in laying out a request: the two-phase layout (each sample
// stores its sides' worst performances and variances, kernels::worst_of_rows_per_sample, one
// lane a sample), the tables kept parallel to the step rows, and the local-vol grids' places.
#include "families/family_batch.hpp"
#include "mcprice/kernels/launch/worst_of.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace mcprice::detail {

template <typename Record>
two_phase_layout worst_of_two_phase_layout(const std::vector<Record>& records)
{
  int rows = 0;
  for (auto const& t : records) rows = std::max(rows, kernels::worst_of_rows_per_sample(t));
  return {kernels::path_samples_per_block * rows, kernels::path_samples_per_block, rows};
}

// Appends a job's rows to a table parallel to the step rows, of which `step_rows` come before
// the job's: the trades before it that have none get blank rows. A job without rows adds none.
template <typename Row>
void append_parallel_rows(std::vector<Row>& table, std::size_t step_rows, const std::vector<Row>& rows)
{
  if (rows.empty()) return;
  table.resize(step_rows, Row{});
  table.insert(table.end(), rows.begin(), rows.end());
}

// Appends a job's local-vol grid axes to the family's grids (setting its first_grid), each placed
// where its values are in the surface table.
template <typename Tables, typename Job>
void append_worst_of_grids(Tables& t, Job& j)
{
  j.kernel.first_grid = static_cast<std::int32_t>(t.grids.size());
  for (std::size_t g = 0; g < j.grids.size(); ++g) {
    if (j.grid_sources[g] != nullptr) j.grids[g].first = t.surface.place(*j.grid_sources[g]);
  }
  t.grids.insert(t.grids.end(), j.grids.begin(), j.grids.end());
}

}  // namespace mcprice::detail
