#pragma once
// A backend turns a family of trades (Europeans, GBM path trades, Heston trades, multi-asset
// Europeans) into per-trade moments.
// Both backends evaluate the same canonical blocks with the same per-path code; they differ
// only in who runs the blocks.
#include "families/exercise_family.hpp"
#include "mcprice/engine.hpp"
#include "mcprice/kernels/models/basket_gbm.hpp"
#include "mcprice/kernels/greeks/basket_greeks.hpp"
#include "mcprice/kernels/models/european_gbm.hpp"
#include "mcprice/kernels/greeks/european_greeks.hpp"
#include "mcprice/kernels/greeks/heston_greeks.hpp"
#include "mcprice/kernels/models/heston_path.hpp"
#include "mcprice/kernels/moments.hpp"
#include "mcprice/kernels/models/path_gbm.hpp"
#include "mcprice/kernels/greeks/path_greeks.hpp"
#include "mcprice/memory_report.hpp"
#include "runtime/run_timeline.hpp"

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mcprice::detail {

// What a request's caller gives every backend call: progress reports and a cancellation flag
// (set by another thread, e.g. a signal handler's; work not yet started is then skipped).
struct run_control {
  progress_callback progress;
  const std::atomic<bool>* cancel{nullptr};
  run_timeline* timeline{nullptr};  // a traced call's spans, or none
  std::size_t chunk{0};             // the pipeline chunk this call belongs to
  // A pipelined chunk's family: at most this many GPU jobs (0: the backend's choice), since the
  // chunks already keep the streams busy and each job costs host time to queue.
  std::size_t max_jobs{0};
  // A pipelined chunk's family queues its GPU work in chunk order: wait_turn before its first
  // GPU operation, submitted once all of it is queued (or it gave up). Empty: no ordering.
  std::function<void()> wait_turn;
  std::function<void()> submitted;
  // Wait for the GPU without sleeping between polls: the call's last chunks (nothing left to
  // prepare, so no thread to starve; a sleep there is added to the call) and unpipelined calls.
  bool spin_wait{true};
  [[nodiscard]] bool cancelled() const noexcept { return cancel != nullptr && cancel->load(std::memory_order_relaxed); }
};

// The Greek sums of a trade, for runs with Greeks only: kept apart so that an outcome of a
// price-only run is small (a book's outcomes are fresh memory every call, and first touching a
// page cost 1-3 us on the GPU host).
struct outcome_greeks {
  greek_moments greeks;                // run_european_greeks
  path_greek_moments path_greeks;      // run_path_greeks, run_heston_greeks
  std::vector<moments> basket_greeks;  // run_basket_greeks, trades with Greeks: basket_channels' sums
};

struct european_outcome {
  moments sums;
  std::unique_ptr<outcome_greeks> extra;  // runs with Greeks
  double continuation_today{0.0};         // run_early_exercise: the calibration paths' mean cash flow
  std::string error;      // non-empty: this trade could not be priced (e.g. its chunk exceeds the job cap)
  bool cancelled{false};  // the run was cancelled before all of this trade's work ran

  outcome_greeks& greek_sums()
  {
    if (!extra) extra = std::make_unique<outcome_greeks>();
    return *extra;
  }
  // The Greek sums, zero when the run kept none.
  [[nodiscard]] const outcome_greeks& greek_sums() const
  {
    static const outcome_greeks none{};
    return extra ? *extra : none;
  }
};

struct family_run {
  std::vector<european_outcome> outcomes;      // per trade, in the order given
  std::vector<european_outcome> combinations;  // run_early_exercise: per Greek combination
  std::size_t jobs{0};                         // GPU jobs the work was cut into
};

class pricing_backend {
 public:
  virtual ~pricing_backend() = default;
  // trades[i].first_block must be the running sum of the blocks of trades[0..i).
  virtual family_run run_european(const std::vector<european_gbm_trade>& trades, std::int64_t total_blocks,
                                  const run_control& control) const = 0;
  // The same, plus the sums of each trade's Greek channels (european_greeks.hpp); the price
  // sums have the same bits as run_european's.
  virtual family_run run_european_greeks(const std::vector<european_gbm_trade>& trades, std::int64_t total_blocks,
                                         const run_control& control) const = 0;
  // Path-dependent trades; grid holds every trade's steps (trade.first_step, trade.steps).
  virtual family_run run_path(const std::vector<path_gbm_trade>& trades, const std::vector<path_step>& grid,
                              std::int64_t total_blocks, const run_control& control) const = 0;
  // The same with each trade's Greeks; greek_grid is parallel to grid. The trades are all
  // Asians (pathwise), or with scenario_lanes all barriers, touches and lookbacks.
  virtual family_run run_path_greeks(const std::vector<path_gbm_trade>& trades, const std::vector<path_step>& grid,
                                     const std::vector<path_greek_step>& greek_grid, std::int64_t total_blocks,
                                     bool scenario_lanes, const run_control& control) const = 0;
  // Single-asset products on Heston assets; steps of every trade in one table.
  virtual family_run run_heston(const std::vector<heston_trade>& trades, const std::vector<heston_step>& steps,
                                std::int64_t total_blocks, const run_control& control) const = 0;
  // --precision double: path trades (GBM Europeans among them, as one-step paths), Heston
  // trades and multi-asset Europeans in double.
  virtual family_run run_path(const std::vector<path_gbm_trade_f64>& trades, const std::vector<path_step_f64>& grid,
                              std::int64_t total_blocks, const run_control& control) const = 0;
  virtual family_run run_heston(const std::vector<heston_trade_f64>& trades, const std::vector<heston_step_f64>& steps,
                                std::int64_t total_blocks, const run_control& control) const = 0;
  virtual family_run run_basket(const std::vector<basket_gbm_trade_f64>& trades,
                                const std::vector<basket_asset_f64>& assets, const std::vector<double>& factors,
                                std::int64_t total_blocks, const run_control& control) const = 0;
  // The same with each trade's Greeks (scenario lanes; path_greeks sums); each trade's steps are
  // followed by its two rolled first steps (heston_greeks.hpp).
  virtual family_run run_heston_greeks(const std::vector<heston_trade>& trades, const std::vector<heston_step>& steps,
                                       std::int64_t total_blocks, const run_control& control) const = 0;
  // Multi-asset Europeans: per-asset parameters and correlation factors in their own tables.
  virtual family_run run_basket(const std::vector<basket_gbm_trade>& trades, const std::vector<basket_asset>& assets,
                                const std::vector<float>& factors, std::int64_t total_blocks,
                                const run_control& control) const = 0;
  // The same with each trade's Greek channels (basket_greeks.hpp; trades with kernel.greeks set,
  // whose factor table holds the correlation-bumped factors after their own).
  virtual family_run run_basket_greeks(const std::vector<basket_gbm_trade>& trades,
                                       const std::vector<basket_asset>& assets, const std::vector<float>& factors,
                                       std::int64_t total_blocks, const run_control& control) const = 0;
  // American and Bermudan trades: the backward calibration of each trade's exercise policy
  // (from f, the trades' tables alone), then its pricing paths under that policy (sums), with
  // continuation_today; then, where `with_greeks` gives a family (f's trades with their Greek
  // scenarios and combinations, packed; asked for once the calibration is under way: it may
  // still be being built), the Greek combinations under the same policy.
  virtual family_run run_early_exercise(const exercise_family& f,
                                        const std::function<const packed_exercise_family*()>& with_greeks,
                                        const run_control& control) const = 0;
  [[nodiscard]] virtual backend_kind kind() const noexcept = 0;
  [[nodiscard]] virtual const std::string& name() const noexcept = 0;
  [[nodiscard]] virtual std::optional<memory_report> memory() const { return std::nullopt; }
  virtual void trim_memory() const {}
};

std::unique_ptr<pricing_backend> make_cpu_backend(unsigned threads);
std::unique_ptr<pricing_backend> make_gpu_backend(const engine_options& options, const market_data& market,
                                                  std::vector<std::string>& notices);

}  // namespace mcprice::detail
