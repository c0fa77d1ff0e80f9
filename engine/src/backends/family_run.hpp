#pragma once
// What a backend is given with a family's work (run_control) and what it gives back: per trade,
// the sums of its samples (family_run).
#include "mcprice/engine.hpp"
#include "mcprice/kernels/greeks/basket_greeks.hpp"
#include "mcprice/kernels/greeks/european_greeks.hpp"
#include "mcprice/kernels/greeks/path_greeks.hpp"
#include "mcprice/kernels/moments.hpp"
#include "runtime/run_timeline.hpp"

#include <atomic>
#include <cstddef>
#include <functional>
#include <iterator>
#include <memory>
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
  // The call's only family in its only chunk: none of the call's other GPU work runs beside it
  // (the early-exercise calibration's one cooperative launch is made only then).
  bool alone{false};
  [[nodiscard]] bool cancelled() const noexcept { return cancel != nullptr && cancel->load(std::memory_order_relaxed); }
};

// The Greek sums of a trade, for runs with Greeks only: kept apart so that an outcome of a
// price-only run is small (a book's outcomes are fresh memory every call, and first touching a
// page cost 1-3 us on the GPU host).
struct outcome_greeks {
  greek_moments greeks;                // European channels
  path_greek_moments path_greeks;      // path and Heston Greek lanes
  std::vector<moments> basket_greeks;  // multi-asset trades with Greeks: basket_channels' sums
};

struct trade_outcome {
  moments sums;
  std::unique_ptr<outcome_greeks> extra;  // runs with Greeks
  double continuation_today{0.0};         // early exercise: the calibration paths' mean cash flow
  std::vector<unsigned long long> tally;  // autocallables: how the paths ended (products/outcome_tally.hpp)
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

// A trade's sums kept in its outcome: the price's, and with Greeks the Greek sums beside them.
inline void keep_greeks(trade_outcome& o, const greek_moments& g) { o.greek_sums().greeks = g; }
inline void keep_greeks(trade_outcome& o, const path_greek_moments& g) { o.greek_sums().path_greeks = g; }
inline void keep_greeks(trade_outcome& o, const basket_greek_moments& g)
{
  o.greek_sums().basket_greeks.assign(std::begin(g.m), std::end(g.m));
}
inline void keep(trade_outcome& o, const moments& m) { o.sums = m; }
template <typename Priced>
void keep(trade_outcome& o, const Priced& m)
{
  o.sums = m.price;
  keep_greeks(o, m.greeks);
}

struct family_run {
  std::vector<trade_outcome> outcomes;      // per trade, in the order given
  std::vector<trade_outcome> combinations;  // early exercise: per Greek combination
  std::size_t jobs{0};                      // GPU jobs the work was cut into
  std::vector<unsigned long long> tally;    // the GPU's outcome counters of the whole request
};

}  // namespace mcprice::detail
