#pragma once
// Host entry points of the early-exercise kernels (early_exercise.hpp). Plain C++ header.
#include "mcprice/kernels/early_exercise.hpp"

#include <cuda_runtime_api.h>

#include <cstdint>

namespace mcprice::kernels {

// The first calibration block of each trade (a running sum), searched per block.
struct calibration_start {
  std::int64_t first_block;
};

// Pricing: moments of canonical blocks [block_begin, block_end) (layout::partials_per_block
// partials each), as the other families' kernels.
void launch_exercise_price_blocks(const exercise_trade* trades, int num_trades, const exercise_tables& tables,
                                  std::int64_t block_begin, std::int64_t block_end, moments* block_moments,
                                  int grid_blocks, cudaStream_t stream);

// Greeks: moments of the scenario combinations' canonical blocks (exercise_combination), their
// units handed out one by one through `unit_counter` (one device word, zeroed here on `stream`).
void launch_exercise_combination_blocks(const exercise_combination* combinations, int num, const exercise_tables& tables,
                                        std::int64_t block_begin, std::int64_t block_end, moments* block_moments,
                                        unsigned long long* unit_counter, int grid_blocks, cudaStream_t stream);

// Calibration job [view.job_first_block, job_end) of the family's calibration blocks: stores
// each path's states and its cash flow at maturity.
void launch_calibration_paths(const exercise_trade* trades, const calibration_start* starts, int num_trades,
                              const exercise_tables& tables, const calibration_view& view, std::int64_t job_end,
                              int grid_blocks, cudaStream_t stream);

// The job's backward step `step` (decisions of steps [from_step, step) first): one
// regression_sums per calibration block, block_sums[family block], summed in a fixed tree.
void launch_calibration_backward(const exercise_trade* trades, const calibration_start* starts, int num_trades,
                                 const exercise_tables& tables, const calibration_view& view, std::int64_t job_end,
                                 int from_step, int step, regression_sums* block_sums, int grid_blocks,
                                 cudaStream_t stream);

// Each trade's sums: its blocks' sums added in block order (trade_sums[trade]).
void launch_regression_totals(const calibration_start* starts, int num_trades, std::int64_t total_blocks,
                              const regression_sums* block_sums, regression_sums* trade_sums, cudaStream_t stream);

}  // namespace mcprice::kernels
