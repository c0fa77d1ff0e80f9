#pragma once
// Calls that arrive together, priced as one (engine_options::batch_window_us; docs/graphs.md,
// "Batching across callers"). A risk platform's stream of small requests pays the engine's
// per-call work (preparation, one request a family, uploads, launches, collection) once per
// call; calls merged into one book pay it once per batch. A trade's numbers depend only on its
// own id, paths and blocks, never on the book around it, so every caller keeps its bits.
//
// Batching starts only under load: a call that finds no other call in flight is priced at once
// (a lone caller never waits). A call that finds one in flight opens a batch and waits for others
// to join, up to the window, and no longer than the calls ahead of it take: once it is the only
// call in flight it goes, so the engine never idles for a batch. It then prices the batch and
// hands each joined call its own rows.
//
// A call may bring a cancel flag and a progress callback (a batch has one of each). A batch
// with any of them is priced on a thread of its own while every call in it waits on its own
// thread: a call sees the batch's progress, and a call whose flag is set leaves at once with its
// trades cancelled (a flag set while the batch is still open, at most its window, is looked at
// when it closes); the batch itself is stopped when every call in it has left.
#include "mcprice/engine.hpp"
#include "mcprice/portfolio.hpp"
#include "mcprice/results.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>

namespace mcprice::detail {

class call_batcher {
 public:
  using price_fn = std::function<pricing_run(const portfolio&, const progress_callback&, const std::atomic<bool>*)>;

  // window: how long an opened batch waits for calls to join; max_trades: a batch closes at
  // once when it holds this many trades (a call that would take it past them goes alone or
  // opens the next batch).
  call_batcher(std::chrono::microseconds window, std::size_t max_trades);

  // The book's rows and its own summary, priced by `price` alone or merged with other calls'
  // books. Rethrows what pricing the batch threw, to every call in it. In a batch, progress is
  // called on this thread with the batch's samples, and cancel leaves the batch (above).
  pricing_run price(const portfolio& book, const price_fn& price, const progress_callback& progress = {},
                    const std::atomic<bool>* cancel = nullptr);

 private:
  struct batch;
  std::size_t join_open(const portfolio& book, bool watched);
  void lead(const std::shared_ptr<batch>& b, std::unique_lock<std::mutex>& lock, const price_fn& price);
  static pricing_run await(const std::shared_ptr<batch>& b, std::size_t k, const progress_callback& progress,
                           const std::atomic<bool>* cancel);
  void finish_call();

  std::chrono::microseconds window_;
  std::size_t max_trades_;
  std::mutex mutex_;
  std::condition_variable filled_;  // an open batch reached max_trades, or its leader is alone
  std::shared_ptr<batch> open_;     // the batch calls may join now, if any
  std::size_t in_flight_{0};        // calls being priced (alone or as batches)
};

// Call k's part of a batch's run: its rows (moved out of `whole`, which keeps the others) and a
// summary of them; the batch's own figures (phases, jobs, chunks, timeline) are the batch's.
pricing_run slice_of_run(pricing_run& whole, std::size_t first, std::size_t count, std::size_t calls);

}  // namespace mcprice::detail
