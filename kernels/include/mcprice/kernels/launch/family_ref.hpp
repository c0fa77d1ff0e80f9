#pragma once
// Launch descriptors: what a launcher is told about a request and a job, as small trivially
// copyable views (in the manner of cuCollections' *_ref types) instead of long positional lists.
// A family_ref is a view only: it points at a request's trade records and the tables they
// index, in device memory for a launch or in host memory for the CPU backend, whose lanes read
// the same tables through the same view.
#include "mcprice/kernels/layout/sample_lanes.hpp"

#include <cstdint>

namespace mcprice::kernels {

// Canonical blocks [begin, end) of a request: what one job covers. `stop` is the request's stop
// word in device memory (null: the job never stops early). The host sets it when the caller
// cancels; the kernels' loops read it once a unit of work and leave the units still to come
// undone, so the host must then treat the whole request as cancelled (its sums are partial).
struct block_range {
  std::int64_t begin{0};
  std::int64_t end{0};
  const unsigned int* stop{nullptr};

  [[nodiscard]] constexpr std::int64_t size() const noexcept { return end - begin; }
};

// The tables of a family whose records index none.
struct no_tables {};

// A request's trade records, in block order (each record's first_block is the running sum of
// the blocks before it), with the tables they index.
template <typename Trade, typename Tables = no_tables>
struct family_ref {
  const Trade* trades{nullptr};
  int num_trades{0};
  Tables tables{};
};

// Lanes of a canonical block of the one-sample-per-lane families (path, Heston, multi-asset
// trades): the two-phase route stores a value a lane of each row.
inline constexpr std::int64_t path_samples_per_block = layout::samples_per_block(own_subsequence_normals);

// A two-phase job's scratch, in the path precision Real: `rows` values a lane of each block in
// path scratch (block-major, then row, then lane), then one value a lane in payoff scratch.
template <typename Real>
struct two_phase_scratch {
  Real* paths{nullptr};
  int rows{0};
  Real* payoffs{nullptr};
};

}  // namespace mcprice::kernels
