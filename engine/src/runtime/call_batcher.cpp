#include "runtime/call_batcher.hpp"

#include "statistics/row_counts.hpp"

#include <algorithm>
#include <exception>
#include <future>
#include <iterator>
#include <stdexcept>
#include <string>
#include <utility>

namespace mcprice::detail {

namespace {

double seconds_since(std::chrono::steady_clock::time_point start)
{
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

// A batch's merged book and, once priced, its run. The calls' books lie in it one after
// another, in the order they joined; `calls` and the book change only while it is open, under
// the batcher's lock, and are read by the joined calls only after `priced` is ready.
struct call_batcher::batch {
  portfolio book;
  std::size_t calls{0};
  bool closed{false};
  std::promise<void> priced_promise;
  std::shared_future<void> priced{priced_promise.get_future().share()};
  pricing_run run;
  std::exception_ptr error;
};

call_batcher::call_batcher(std::chrono::microseconds window, std::size_t max_trades)
    : window_(window), max_trades_(std::max<std::size_t>(max_trades, 1))
{
}

pricing_run call_batcher::price(const portfolio& book, const price_fn& price)
{
  auto const start = std::chrono::steady_clock::now();
  std::size_t const n = book.trades.size();
  std::unique_lock<std::mutex> lock(mutex_);
  if (open_ && open_->book.trades.size() + n <= max_trades_) {
    // Join the open batch and wait for its leader to price it.
    std::shared_ptr<batch> const b = open_;
    std::size_t const first = b->book.trades.size();
    b->book.trades.insert(b->book.trades.end(), book.trades.begin(), book.trades.end());
    ++b->calls;
    if (b->book.trades.size() >= max_trades_) {
      b->closed = true;
      open_.reset();
      filled_.notify_all();
    }
    lock.unlock();
    b->priced.wait();
    if (b->error) std::rethrow_exception(b->error);
    pricing_run mine = slice_of_run(b->run, first, n, b->calls);
    mine.summary.wall_seconds = seconds_since(start);
    return mine;
  }
  if (in_flight_ == 0 || window_.count() == 0 || n >= max_trades_) {
    // Alone (nothing else in flight: waiting could only add latency), or too large to share.
    ++in_flight_;
    lock.unlock();
    struct done_guard {
      call_batcher* self;
      ~done_guard() { self->finish_call(); }
    } const done{this};
    return price(book);
  }
  auto const b = std::make_shared<batch>();
  b->book.source = book.source;
  b->book.trades = book.trades;
  b->calls = 1;
  ++in_flight_;           // after the copy, which may throw: lead() gives it back
  if (!open_) open_ = b;  // else another batch is open but too full for this book: this one leads alone
  pricing_run mine = lead(b, lock, price);
  mine.summary.wall_seconds = seconds_since(start);
  return mine;
}

// Waits up to the window for calls to join, until the batch fills or no other call is in flight
// (the engine would idle), then prices it and hands the joined calls their rows. The leader's
// own book is the batch's first.
pricing_run call_batcher::lead(const std::shared_ptr<batch>& b, std::unique_lock<std::mutex>& lock,
                               const price_fn& price)
{
  std::size_t const mine = b->book.trades.size();
  if (open_ == b) filled_.wait_for(lock, window_, [&] { return b->closed || in_flight_ == 1; });
  b->closed = true;
  if (open_ == b) open_.reset();
  lock.unlock();
  try {
    b->run = price(b->book);
  } catch (...) {
    b->error = std::current_exception();
  }
  b->priced_promise.set_value();
  finish_call();
  if (b->error) std::rethrow_exception(b->error);
  return slice_of_run(b->run, 0, mine, b->calls);
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
