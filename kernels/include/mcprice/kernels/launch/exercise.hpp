#pragma once
// Host entry points of the early-exercise kernels (early_exercise.hpp). Plain C++ header.
#include "mcprice/kernels/exercise/early_exercise.hpp"
#include "mcprice/kernels/launch/family_ref.hpp"
#include "mcprice/kernels/launch/launch_target.hpp"
#include "mcprice/kernels/launch/tuning.hpp"

#include <cuda_runtime_api.h>

#include <cstdint>

namespace mcprice::kernels {

// The first calibration block of each trade (a running sum), searched per block.
struct calibration_start {
  std::int64_t first_block;
};

// A family's trades, or its Greek combinations, with the tables they read.
using exercise_ref = family_ref<exercise_trade, exercise_tables>;
using combination_ref = family_ref<exercise_combination, exercise_tables>;

// A calibration's trades with their first calibration blocks, tables and job view, and its stop
// word (null: none): a device word the host sets once its caller has cancelled, after which the
// calibration's kernels take no more work (what they leave is never read: the family is
// cancelled).
struct calibration_ref {
  const exercise_trade* trades{nullptr};
  const calibration_start* starts{nullptr};
  int num_trades{0};
  exercise_tables tables{};
  calibration_view view{};
  const unsigned int* stop{nullptr};
};

// Pricing: moments of the request's canonical blocks `blocks` (layout::partials_per_block
// partials each), as the other families' kernels.
void launch_exercise_price_blocks(const exercise_ref& f, block_range blocks, moments* partials, launch_target at);

// Greeks: moments of the scenario combinations' canonical blocks (exercise_combination), their
// units handed out one by one through a counter. A kernel per kind of trade present
// (`asset_counts`: bit n for trades of n assets): one compiled for each asset count in
// tuning::exercise_sized_assets, one for the others; `unit_counters`: a device word each
// (combination_kernels), zeroed here on `stream`.
inline constexpr int combination_kernels = tuning::exercise_sized_kinds + 1;

void launch_exercise_combination_blocks(const combination_ref& f, block_range blocks, moments* partials,
                                        std::uint32_t asset_counts, unsigned long long* unit_counters,
                                        launch_target at);

// Calibration job [c.view.job_first_block, job_end) of the family's calibration blocks: stores
// each path's states and its cash flow at maturity.
void launch_calibration_paths(const calibration_ref& c, std::int64_t job_end, launch_target at);

// Where a backward step's regressions go (store_regression), all in device memory:
// coefficients: the family's coefficient table (the tables' coefficient rows), which the next
// step's decisions read; continuation_today: one double per trade; fixed_totals: with split
// sums, every step's fixed part (launch_calibration_fixed's fixed_totals, from step 0), else
// nullptr.
struct step_regression {
  float* coefficients{nullptr};
  double* continuation_today{nullptr};
  const double* fixed_totals{nullptr};
};

// The backward kernel's last block to finish sums the trades' moving totals itself
// (launch_regression_totals' values, the same bits) and solves the step's regressions with the
// fixed part: no kernel of its own a step. blocks_done: a device counter, zero before the first
// launch (each launch leaves it zero); nullptr: not folded.
struct folded_totals {
  unsigned int* blocks_done{nullptr};
  std::int64_t total_blocks{0};  // the family's calibration blocks
};

// Trades a folded step may hold: its last block's warps sum their moving totals.
inline constexpr int max_folded_trades = 8;

// The job's backward step `step` (decisions of steps [from_step, step) first): one
// regression_sums per calibration block, block_sums[family block], summed in a fixed tree;
// moving_only: only the moving part's components (sums_part), the fixed part coming from
// launch_calibration_fixed, and with fold.blocks_done set (at most max_folded_trades trades)
// the step's regressions solved by the kernel into `out`.
void launch_calibration_backward(const calibration_ref& c, std::int64_t job_end, int from_step, int step,
                                 regression_sums* block_sums, bool moving_only, const folded_totals& fold,
                                 const step_regression& out, launch_target at);

// Backward steps [0, steps) of a resident job in one cooperative launch (a CUDA block per
// calibration block, a grid barrier a step), each step's regressions solved into `out`: the bits
// of the per-step launches. Needs the split sums (out.fixed_totals, launch_calibration_fixed)
// and every block co-resident; returns false, launching nothing, where they are not.
// block_sums: 2 x total_blocks, zero for blocks outside the job.
bool launch_calibration_steps(const calibration_ref& c, std::int64_t job_end, std::int64_t total_blocks, int steps,
                              regression_sums* block_sums, const step_regression& out, cudaStream_t stream);

// The fixed part of backward steps [step_begin, step_end) for the job's blocks, every step at
// once, then each trade's: fixed_totals[((step - step_begin) * num_trades + trade) *
// regression_fixed_doubles + slot]. fixed_sums: scratch of (step_end - step_begin) *
// total_blocks * regression_fixed_doubles doubles, whose blocks outside the job must hold zeros.
void launch_calibration_fixed(const calibration_ref& c, std::int64_t job_end, std::int64_t total_blocks, int step_begin,
                              int step_end, double* fixed_sums, double* fixed_totals, launch_target at);

// Each trade's sums: its blocks' sums added in block order (trade_sums[trade]); moving_only:
// the moving part's components alone.
void launch_regression_totals(const calibration_start* starts, int num_trades, std::int64_t total_blocks,
                              const regression_sums* block_sums, regression_sums* trade_sums, bool moving_only,
                              cudaStream_t stream);

// Backward step `step`'s regressions from each trade's sums (with out.fixed_totals set, their
// moving part, the fixed part joined from there): store_regression into `out`, a thread a trade.
void launch_regression_solve(const exercise_trade* trades, int num_trades, int step, const regression_sums* trade_sums,
                             const step_regression& out, cudaStream_t stream);

}  // namespace mcprice::kernels
