#include "runtime/call_batcher.hpp"

#include "chunk_pricing.hpp"
#include "statistics/row_counts.hpp"

#include <algorithm>
#include <exception>
#include <future>
#include <iterator>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace mcprice::detail {

namespace {

// How often a call in a watched batch looks at its flag and reports progress.
constexpr auto watch_interval = std::chrono::milliseconds(10);

double seconds_since(std::chrono::steady_clock::time_point start)
{
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

// A batch's merged book and, once priced, its run. The calls' books lie in it one after
// another, in the order they joined (`parts`: each call's first row and count); the book, the
// parts and `watched` change only while it is open, under the batcher's lock, and are read by
// the calls only after it closed.
struct call_batcher::batch {
  portfolio book;
  std::vector<std::pair<std::size_t, std::size_t>> parts;
  bool closed{false};
  bool watched{false};  // a call brought a cancel flag or a progress callback: priced on `worker`
  // Set by the leader once no call can join: the calls read `parts` and `watched` after it.
  std::promise<void> closed_promise;
  std::shared_future<void> closed_at{closed_promise.get_future().share()};
  std::promise<void> priced_promise;
  std::shared_future<void> priced{priced_promise.get_future().share()};
  pricing_run run;
  std::exception_ptr error;
  // Watched batches only: the worker's progress for the calls, and how calls left.
  std::thread worker;
  std::atomic<bool> stop{false};
  std::atomic<std::int64_t> done{0};
  std::atomic<std::int64_t> total{0};
  std::mutex leaving;
  std::size_t left{0};
  std::size_t cancelled{0};

  // Leaves a watched batch; true for the last call to leave, which joins the worker. When every
  // call has left cancelled, the batch is stopped (the worker's engine call sees the flag).
  bool leave(bool cancelled_call)
  {
    std::lock_guard<std::mutex> const lock(leaving);
    ++left;
    if (cancelled_call && ++cancelled == parts.size()) stop = true;
    return left == parts.size();
  }

  // Call k's rows of the priced batch, or what pricing it threw.
  pricing_run part(std::size_t k)
  {
    if (error) std::rethrow_exception(error);
    return slice_of_run(run, parts[k].first, parts[k].second, parts.size());
  }

  // Call k's rows once it left on its cancel flag: every trade cancelled.
  pricing_run cancelled_part(std::size_t k) const
  {
    auto const [first, count] = parts[k];
    pricing_run rows;
    rows.results.resize(count);
    for (std::size_t i = 0; i < count; ++i) mark_cancelled(rows.results[i], book.trades[first + i].id);
    rows.summary.trades = count;
    rows.summary.cancelled = count;
    rows.summary.batch_calls = parts.size();
    return rows;
  }
};

call_batcher::call_batcher(std::chrono::microseconds window, std::size_t max_trades)
    : window_(window), max_trades_(std::max<std::size_t>(max_trades, 1))
{
}

pricing_run call_batcher::price(const portfolio& book, const price_fn& price, const progress_callback& progress,
                                const std::atomic<bool>* cancel)
{
  auto const start = std::chrono::steady_clock::now();
  std::size_t const n = book.trades.size();
  bool const watched = progress || cancel != nullptr;
  std::unique_lock<std::mutex> lock(mutex_);
  if (open_ && open_->book.trades.size() + n <= max_trades_ && (cancel == nullptr || !*cancel)) {
    // Join the open batch and wait for it to be priced.
    std::shared_ptr<batch> const b = open_;
    std::size_t const k = join_open(book, watched);
    lock.unlock();
    pricing_run mine = await(b, k, progress, cancel);
    mine.summary.wall_seconds = seconds_since(start);
    return mine;
  }
  if (in_flight_ == 0 || window_.count() == 0 || n >= max_trades_ || (cancel != nullptr && *cancel)) {
    // Alone (nothing else in flight: waiting could only add latency), too large to share, or
    // already cancelled.
    ++in_flight_;
    lock.unlock();
    struct done_guard {
      call_batcher* self;
      ~done_guard() { self->finish_call(); }
    } const done{this};
    return price(book, progress, cancel);
  }
  auto const b = std::make_shared<batch>();
  b->book.source = book.source;
  b->book.trades = book.trades;
  b->parts.emplace_back(0, n);
  b->watched = watched;
  ++in_flight_;           // after the copy, which may throw: lead() gives it back
  if (!open_) open_ = b;  // else another batch is open but too full for this book: this one leads alone
  lead(b, lock, price);
  pricing_run mine = await(b, 0, progress, cancel);
  mine.summary.wall_seconds = seconds_since(start);
  return mine;
}

// Appends the book to the open batch as its next call (under the batcher's lock) and returns
// the call's position; closes the batch when it is full.
std::size_t call_batcher::join_open(const portfolio& book, bool watched)
{
  batch& b = *open_;
  std::size_t const k = b.parts.size();
  std::size_t const first = b.book.trades.size();
  b.parts.reserve(k + 1);
  try {
    b.book.trades.insert(b.book.trades.end(), book.trades.begin(), book.trades.end());
  } catch (...) {
    // The batch as it was: this call is not in it.
    b.book.trades.erase(b.book.trades.begin() + static_cast<std::ptrdiff_t>(first), b.book.trades.end());
    throw;
  }
  b.parts.emplace_back(first, book.trades.size());  // reserved: does not throw
  b.watched = b.watched || watched;
  if (b.book.trades.size() >= max_trades_) {
    b.closed = true;
    open_.reset();
    filled_.notify_all();
  }
  return k;
}

// Waits up to the window for calls to join, until the batch fills or no other call is in flight
// (the engine would idle), then prices it: here, or on a worker thread when it is watched.
void call_batcher::lead(const std::shared_ptr<batch>& b, std::unique_lock<std::mutex>& lock, const price_fn& price)
{
  if (open_ == b) filled_.wait_for(lock, window_, [&] { return b->closed || in_flight_ == 1; });
  b->closed = true;
  if (open_ == b) open_.reset();
  lock.unlock();
  b->closed_promise.set_value();
  auto const run = [this, b, price] {
    batch& x = *b;
    // An unwatched batch's call reports no progress and looks at no flag, as a lone call.
    progress_callback report;
    if (x.watched) {
      report = [&x](std::int64_t done, std::int64_t total) {
        x.total = total;
        x.done = done;
      };
    }
    try {
      x.run = price(x.book, report, x.watched ? &x.stop : nullptr);
    } catch (...) {
      x.error = std::current_exception();
    }
    x.priced_promise.set_value();
    finish_call();
  };
  if (!b->watched) return run();
  try {
    b->worker = std::thread(run);
  } catch (...) {  // no thread: priced here, its calls still watched in await
    run();
  }
}

// Call k's part of its batch, once priced. In a watched batch the call looks at its flag and
// reports the batch's progress while it waits, and leaves at once, cancelled, when its flag is
// set; the last call to leave joins the worker (so no batch outlives its calls, nor the engine).
pricing_run call_batcher::await(const std::shared_ptr<batch>& b, std::size_t k, const progress_callback& progress,
                                const std::atomic<bool>* cancel)
{
  // Until the batch closes (at most its window) other calls may still join it and make it
  // watched; the flag is looked at from then on.
  b->closed_at.wait();
  if (!b->watched) {
    b->priced.wait();
    return b->part(k);
  }
  // Leaves the batch on every way out (a progress callback may throw): cancelled unless priced.
  struct leaving_guard {
    batch& b;
    bool priced{false};
    ~leaving_guard()
    {
      if (!b.leave(!priced)) return;
      b.priced.wait();  // the last call out: when all were cancelled, the batch was stopped
      if (b.worker.joinable()) b.worker.join();
    }
  } guard{*b};
  auto const report = [&] {
    if (progress && b->total > 0) progress(b->done, b->total);
  };
  while (b->priced.wait_for(watch_interval) != std::future_status::ready) {
    if (cancel != nullptr && *cancel) {
      return b->cancelled_part(k);
    }
    report();
  }
  guard.priced = true;
  report();
  return b->part(k);
}

// A call leaves: an open batch whose leader is then the only call in flight goes at once.
void call_batcher::finish_call()
{
  std::lock_guard<std::mutex> const lock(mutex_);
  --in_flight_;
  if (open_ && in_flight_ == 1) filled_.notify_all();
}

pricing_run slice_of_run(pricing_run& whole, std::size_t first, std::size_t count, std::size_t calls)
{
  if (whole.results.size() < first + count) {
    throw std::logic_error("a batch of " + std::to_string(whole.results.size()) + " rows has no rows [" +
                           std::to_string(first) + ", " + std::to_string(first + count) + ")");
  }
  pricing_run part;
  part.summary = whole.summary;
  auto const from = whole.results.begin() + static_cast<std::ptrdiff_t>(first);
  part.results.assign(std::make_move_iterator(from),
                      std::make_move_iterator(from + static_cast<std::ptrdiff_t>(count)));
  row_counts rows;
  for (auto const& r : part.results) rows.add(r, part.summary.greeks);
  run_summary& s = part.summary;
  s.trades = count;
  s.cancelled = rows.cancelled;
  s.paths = rows.paths;
  s.without_greeks = rows.without_greeks;
  s.failed = count - rows.priced - rows.cancelled;
  s.batch_calls = calls;
  return part;
}

}  // namespace mcprice::detail
