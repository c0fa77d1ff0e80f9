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

// Where the backward kernel's last block puts the trades' moving totals (launch_regression_totals'
// values, the same bits): totals[trade * regression_moving_doubles + slot] in host memory the
// device can write (pinned), then `tag` into *flag. blocks_done: a device counter, zero before
// the first launch (each launch leaves it zero). totals == nullptr: not folded.
struct folded_totals {
  unsigned int* blocks_done{nullptr};
  double* totals{nullptr};
  volatile unsigned int* flag{nullptr};
  unsigned int tag{0};
  std::int64_t total_blocks{0};  // the family's calibration blocks
};

// The job's backward step `step` (decisions of steps [from_step, step) first): one
// regression_sums per calibration block, block_sums[family block], summed in a fixed tree;
// moving_only: only the moving part's components (sums_part), the fixed part coming from
// launch_calibration_fixed, and with fold.totals set their trade totals summed by the kernel.
void launch_calibration_backward(const exercise_trade* trades, const calibration_start* starts, int num_trades,
                                 const exercise_tables& tables, const calibration_view& view, std::int64_t job_end,
                                 int from_step, int step, regression_sums* block_sums, bool moving_only,
                                 const folded_totals& fold, int grid_blocks, cudaStream_t stream);

// The fixed part of backward steps [step_begin, step_end) for the job's blocks, every step at
// once, then each trade's: fixed_totals[((step - step_begin) * num_trades + trade) *
// regression_fixed_doubles + slot]. fixed_sums: scratch of (step_end - step_begin) *
// total_blocks * regression_fixed_doubles doubles, whose blocks outside the job must hold zeros.
void launch_calibration_fixed(const exercise_trade* trades, const calibration_start* starts, int num_trades,
                              const exercise_tables& tables, const calibration_view& view, std::int64_t job_end,
                              std::int64_t total_blocks, int step_begin, int step_end, double* fixed_sums,
                              double* fixed_totals, int grid_blocks, cudaStream_t stream);

// Each trade's sums: its blocks' sums added in block order (trade_sums[trade]); moving_only:
// the moving part's components alone.
void launch_regression_totals(const calibration_start* starts, int num_trades, std::int64_t total_blocks,
                              const regression_sums* block_sums, regression_sums* trade_sums, bool moving_only,
                              cudaStream_t stream);

}  // namespace mcprice::kernels
