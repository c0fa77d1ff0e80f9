#pragma once
// The GPU backend's calibration executor: the family's tables, trade records and per-block sums
// in request buffers; each job's paths and cash flows in path and payoff scratch leased from the
// scratch pool under the job cap; every step and every regression on one stream, on the device
// (the host queues them and waits once, for the coefficients). With every path resident (one
// job), the sums' fixed part (sums_part: the basis' products, which the decisions do not change)
// is summed for every step at once after the paths are simulated, and each step sums only its
// moving part; a family of at most 8 trades then runs all its steps in one cooperative launch
// where its blocks fit the GPU at once (one_launch), else a launch a step whose last block
// solves.
#include "backends/gpu/gpu_context.hpp"
#include "families/exercise_family.hpp"

#include <atomic>
#include <memory>

namespace mcprice::detail {

std::unique_ptr<calibration_executor> make_gpu_calibration(gpu_context& ctx, const exercise_family& f,
                                                           const exercise_table_layout& l, std::size_t job_cap,
                                                           int grid_blocks, bool resident, bool one_launch,
                                                           const std::atomic<bool>* cancel);

}  // namespace mcprice::detail
