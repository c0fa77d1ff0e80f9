#pragma once
// One family's trades in a chunk of a request: their kernel records, numbered in canonical
// blocks, the tables the records index, and what turns each trade's sums into its result.
// Family is a traits type of the registry (family_list.hpp).
#include "mcprice/kernels/launch/family_ref.hpp"
#include "mcprice/kernels/layout/canonical_layout.hpp"

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace mcprice::detail {

// The pieces of a family's traits that most families share.
// A family whose results need nothing beyond the sums.
struct no_result_input {};

// A family whose records index no tables.
struct no_host_tables {
  template <typename At>
  [[nodiscard]] kernels::no_tables place(At&&) const
  {
    return {};
  }
};

// A family's two-phase scratch per canonical block, in its path precision: path values (rows
// of them a lane, or the family's own layout), then payoff values.
struct two_phase_layout {
  std::int64_t path_values{0};
  std::int64_t payoff_values{0};
  int rows{0};
};

// Families with Greek lanes name their Greek sums; the others' greek_sums is void.
template <typename Family>
inline constexpr bool has_greeks = !std::is_void_v<typename Family::greek_sums>;

// Whether the GPU computes the family's Greeks: its Greek kernels are float (under --precision
// double the GPU backend hands a request with Greeks to the host).
template <typename Family>
inline constexpr bool has_gpu_greeks = has_greeks<Family> && std::is_same_v<typename Family::real, float>;

// Whether the GPU has kernels for the family (a family says `gpu_kernels = false` when its
// records are priced by the host's lanes under either backend).
template <typename Family, typename = void>
inline constexpr bool has_gpu_kernels = true;
template <typename Family>
inline constexpr bool has_gpu_kernels<Family, std::void_t<decltype(Family::gpu_kernels)>> = Family::gpu_kernels;

// What every family keeps per trade for its results, whatever its records.
struct family_rows {
  std::vector<double> scales;  // turns a mean payoff into a price
  std::vector<std::int64_t> paths;
  std::vector<std::int64_t> samples;
  std::vector<std::size_t> rows;  // input row of each trade
};

template <typename Family>
struct family_batch : family_rows {
  using family = Family;
  using record = typename Family::record;

  std::vector<record> records;
  typename Family::tables tables;
  // Per trade, what its results need beyond the sums (an empty type where nothing is).
  std::vector<typename Family::result_input> result_inputs;
  std::int64_t blocks{0};

  // Appends a job made by Family::make_job: its tables, then its record numbered from the
  // blocks so far (records are in block order).
  void add(typename Family::job& job, std::size_t row)
  {
    Family::append_tables(tables, job);
    job.kernel.first_block = blocks;
    blocks += layout::blocks_for(job.kernel.samples, Family::normals_per_sample);
    if constexpr (!std::is_empty_v<typename Family::result_input>) {
      result_inputs.push_back(Family::result_input_of(job));
    }
    samples.push_back(job.kernel.samples);
    records.push_back(job.kernel);
    scales.push_back(job.scale);
    paths.push_back(job.paths);
    rows.push_back(row);
  }

  [[nodiscard]] bool empty() const noexcept { return records.empty(); }
};

}  // namespace mcprice::detail
