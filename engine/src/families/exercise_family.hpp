#pragma once
// A request's early-exercise trades with their tables, and the backward calibration that both
// backends drive: jobs of calibration blocks that fit the scratch cap, one backward step at a
// time. Each step's normal equations are solved where its sums are: on the GPU by the step's own
// kernels, in stream order with no host wait between steps (the backward kernel's last block, or
// one cooperative launch for every step); on the CPU by the host. The planning and the step loop
// are host logic, tested without a GPU through the CPU executor.
#include "mcprice/kernels/exercise/early_exercise.hpp"
#include "mcprice/kernels/launch/tuning.hpp"
#include "mcprice/market.hpp"
#include "products/local_vol_setup.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace mcprice::detail {

struct run_control;

// Real: the path precision (float, or double for --precision double).
template <typename Real>
struct basic_exercise_family {
  using real = Real;
  std::vector<basic_exercise_trade<Real>> trades;  // first_block and first_calibration_block: running sums
  std::vector<basic_exercise_asset<Real>> assets;
  std::vector<Real> factors;
  std::vector<basic_exercise_gbm_step<Real>> gbm_steps;
  std::vector<basic_heston_step<Real>> heston_steps;
  vol_pair_table<Real> surfaces;                   // local-vol assets' grids: the market's table
  std::vector<Real> jump_counts;                   // jump trades' lambda dt per step and asset
  std::vector<Real> discounts;                     // per trade (and scenario) date
  std::int32_t coefficient_dates{0};               // the trades' dates: max_exercise_basis coefficients each
  std::vector<basic_exercise_trade<Real>> scenarios;  // Greeks: bumped copies of the trades
  std::vector<exercise_combination> combinations;  // Greeks: first_block a running sum
  std::vector<exercise_walk_group> walk_groups;    // Greeks: combinations the GPU walks together
  std::int64_t combination_blocks{0};
  std::int64_t blocks{0};              // pricing blocks
  std::int64_t calibration_blocks{0};  // calibration blocks (calibration_paths_per_block paths each)
  std::int64_t calibration_floats{0};  // the path scratch all of them would take (in Reals)
};
using exercise_family = basic_exercise_family<float>;

// The tables packed in one upload (256-byte aligned parts), coefficients last.
struct exercise_table_layout {
  std::size_t assets{0}, factors{0}, gbm{0}, heston{0}, jumps{0}, discounts{0}, scenarios{0}, groups{0},
      coefficients{0}, bytes{0};
  bool any_jumps{false};  // some trade jumps: the tables' jump_counts are set (else null)
};
template <typename Real>
exercise_table_layout layout_of(const basic_exercise_family<Real>& f);
template <typename Real>
std::vector<unsigned char> pack_tables(const basic_exercise_family<Real>& f, const std::vector<Real>& coefficients,
                                       const exercise_table_layout& l);
// The tables' views from an upload at `base`; local-vol grids from the backend's copy of the
// market's table (`surfaces`).
template <typename Real>
basic_exercise_tables<Real> tables_at(const void* base, const exercise_table_layout& l,
                                      const basic_vol_pair<Real>* surfaces);

// A family with its tables packed ahead of the calibration: every part but the coefficients,
// which go in at upload (the part from layout.coefficients on is left zero here).
template <typename Real>
struct basic_packed_exercise_family {
  basic_exercise_family<Real> f;
  exercise_table_layout layout;
  std::vector<unsigned char> tables;
};
using packed_exercise_family = basic_packed_exercise_family<float>;
template <typename Real>
basic_packed_exercise_family<Real> packed(basic_exercise_family<Real> f);

// Groups the shared-path combinations [first, end) of one trade (its delta, gamma and
// cross-gamma scenarios) whose scenarios walk the same log-spot paths, as many as fit one
// group's legs, and marks each grouped combination with its group and legs' places. The
// combinations' values keep their bits; only the GPU reads the groups.
template <typename Real>
void group_spot_walks(basic_exercise_family<Real>& f, std::size_t first, std::size_t end, int max_legs);

// The legs a trade's walk groups hold: `spot_legs` distinct spot scenarios, walked on `paths`
// paths, one warp per 32, leaving about `resident_warps` warps of walks.
[[nodiscard]] int walk_group_legs(std::size_t spot_legs, std::int64_t paths,
                                  int resident_warps = tuning::exercise_walk_warps);

// walk_group_legs for the shared-path combinations [first, end) of one trade, with the resident
// warps of the kernel its Greeks run (tuning::exercise_walk_warps, or exercise_sized_walk_warps).
template <typename Real>
[[nodiscard]] int walk_group_legs(const basic_exercise_family<Real>& f, std::size_t first, std::size_t end);

// Whether two scenarios walk bit-identical paths: the same key, dates, steps, correlation
// factor, variances' start and vol of vol (today's spots, strikes and discounts may differ).
template <typename Real>
[[nodiscard]] bool same_walk(const basic_exercise_family<Real>& f, const basic_exercise_trade<Real>& a,
                             const basic_exercise_trade<Real>& b);

// The asset counts of the family's Greek combinations' trades: bit n for n assets.
[[nodiscard]] std::uint32_t combination_asset_counts(const exercise_family& f);

// Whether two scenarios differ only in today's spots: they walk the same paths (same_walk) and
// decide by the same dates, discounts, coefficients, payoff, weights and basis scales. One walk
// then serves both, on a's record (shared_walk_values); only then is a combination's path shared.
template <typename Real>
[[nodiscard]] bool same_decisions(const basic_exercise_family<Real>& f, const basic_exercise_trade<Real>& a,
                                  const basic_exercise_trade<Real>& b);

// Marks the two-leg combinations [first, end) whose legs differ only in one asset's own inputs
// (vega's scenarios: that asset's v0 and steps, or its vol), setting variant_asset: one walk
// then serves both legs (asset_variant). Every other combination gets -1.
template <typename Real>
void mark_variant_pairs(basic_exercise_family<Real>& f, std::size_t first, std::size_t end);

// The combinations with every leg walking on its own (no groups, no variant pairs): the same
// bits, for tests and benchmarks (engine_options::shared_greek_walks = false).
std::vector<exercise_combination> each_leg_alone(std::vector<exercise_combination> combinations);

// A calibration job: family calibration blocks [first_block, end_block), whose paths are the
// family's path-scratch floats [first_float, end_float).
struct calibration_job {
  std::int64_t first_block;
  std::int64_t end_block;
  std::int64_t first_float;
  std::int64_t end_float;
};

// Scratch bytes of a job of `blocks` blocks storing `path_floats` values of paths (and a cash
// flow per path), each of `real_bytes` (a float's, or a double's under --precision double).
[[nodiscard]] std::size_t calibration_bytes(std::int64_t blocks, std::int64_t path_floats,
                                            std::size_t real_bytes = sizeof(float));
[[nodiscard]] std::size_t calibration_bytes(const calibration_job& job);

struct calibration_plan {
  std::vector<calibration_job> jobs;
  std::vector<std::size_t> trades_too_large;  // one block of theirs exceeds the cap: not calibrated
  std::size_t smallest_need{0};
  bool resident{true};  // one job holds every path: paths are simulated once
};

// Greedy in block order: a job grows while calibration_bytes stays within cap (0: no cap).
template <typename Real>
calibration_plan plan_calibration(const std::vector<basic_exercise_trade<Real>>& trades, std::int64_t total_blocks,
                                  std::size_t cap);

// What a backend does for the step loop.
template <typename Real>
class basic_calibration_executor {
 public:
  virtual ~basic_calibration_executor() = default;
  virtual void simulate(const calibration_job& job) = 0;
  virtual void backward(const calibration_job& job, int from_step, int step) = 0;
  // The step's regressions (store_regression for every trade, from the sums of the step just
  // run) into the executor's own coefficient table, which the next step's decisions read. The
  // GPU's run on the device, in stream order: no wait.
  virtual void regress(int step) = 0;
  // Backward steps [0, steps) of the resident job, with their regressions, all at once where the
  // backend can (the same bits as step by step); false: nothing done, go step by step.
  virtual bool backward_all(const calibration_job& /*job*/, int /*steps*/) { return false; }
  // The coefficients and continuation values as the steps left them (waits for them).
  virtual void collect(std::vector<Real>& coefficients, std::vector<double>& continuation_today) = 0;
};
using calibration_executor = basic_calibration_executor<float>;

template <typename Real>
struct basic_calibration {
  std::vector<Real> coefficients;          // per trade date, max_exercise_basis each
  std::vector<double> continuation_today;  // per trade: the mean calibration cash flow
  bool cancelled{false};
};
using calibration = basic_calibration<float>;

// The backward steps of the family's longest trade: regressions(t) and one more for the totals.
template <typename Real>
[[nodiscard]] int backward_steps(const basic_exercise_family<Real>& f);

template <typename Real>
basic_calibration<Real> calibrate(const basic_exercise_family<Real>& f, const calibration_plan& plan,
                                  basic_calibration_executor<Real>& x, const run_control& control);

}  // namespace mcprice::detail
