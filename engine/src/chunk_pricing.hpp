#pragma once
// One chunk of a call priced: its families run on the backend (side by side on the GPU), then
// its sums become its rows of results.
#include "backends/pricing_backend.hpp"
#include "families/request_families.hpp"
#include "mcprice/engine.hpp"
#include "mcprice/results.hpp"
#include "planning/submission_order.hpp"
#include "runtime/run_timeline.hpp"
#include "runtime/thread_cache.hpp"
#include "statistics/row_counts.hpp"

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <future>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace mcprice::detail {

// Progress of several families and chunks in flight, summed for the caller (who may see totals
// grow as chunks are submitted), one report at a time.
class progress_sum {
 public:
  explicit progress_sum(const progress_callback& user) : user_(user) {}
  progress_callback for_slot(std::size_t slot)
  {
    if (!user_) return {};
    std::lock_guard<std::mutex> const lock(mutex_);
    if (parts_.size() <= slot) parts_.resize(slot + 1);
    return [this, slot](std::int64_t done, std::int64_t total) {
      std::lock_guard<std::mutex> const guard(mutex_);
      parts_[slot] = {done, total};
      std::int64_t d = 0;
      std::int64_t t = 0;
      for (auto const& [pd, pt] : parts_) {
        d += pd;
        t += pt;
      }
      user_(d, t);
    };
  }

 private:
  const progress_callback& user_;
  std::mutex mutex_;
  std::vector<std::pair<std::int64_t, std::int64_t>> parts_;
};

// A trade the run was stopped before pricing.
void mark_cancelled(trade_result& r, const std::string& id);

// Waits for every future, running the deferred ones first (they are this thread's share of
// the work, best started while the helpers' is in flight), and even after one fails (they all
// write into shared state); then rethrows the first failure. f(i, value) takes each result.
template <typename T, typename Take>
void wait_all(std::vector<std::future<T>>& pending, Take&& take)
{
  std::exception_ptr failure;
  for (int pass = 0; pass < 2; ++pass) {
    for (std::size_t i = 0; i < pending.size(); ++i) {
      if (!pending[i].valid()) continue;  // taken in the first pass
      bool const deferred = pending[i].wait_for(std::chrono::seconds(0)) == std::future_status::deferred;
      if (deferred != (pass == 0)) continue;
      try {
        take(i, pending[i].get());
      } catch (...) {
        if (!failure) failure = std::current_exception();
      }
    }
  }
  if (failure) std::rethrow_exception(failure);
}

// With the chunk's rows by outcome (the summary's counts, made where the rows are hot).
struct chunk_timing : row_counts {
  double price_seconds{0.0};
  double results_seconds{0.0};
  std::size_t jobs{0};
};

// What every chunk of a call shares.
struct call_state {
  const pricing_backend& backend;
  thread_cache& threads;
  const portfolio& book;
  std::vector<trade_result>& results;
  std::shared_future<void> results_ready;  // the results vector is sized (off the critical path)
  progress_sum& progress;
  const std::atomic<bool>* cancel;
  run_timeline* timeline;
  submission_order* order;  // pipelined calls: chunks queue their GPU work in order
  bool greeks;
  std::size_t results_per_thread;  // rows a thread turns into results
  std::size_t chunks;
};

// Prices a chunk's families and turns their sums into its rows of results. On the GPU the
// families run side by side (each is a request of its own on the shared stream pool), so one
// family's kernels fill the GPU while another's are planned, uploaded or collected.
chunk_timing price_families(const call_state& call, const request_families& f, std::size_t chunk, std::size_t begin,
                            std::size_t end);

}  // namespace mcprice::detail
