#include "split_pricing.hpp"

#include "mcprice/work_split.hpp"

#include <chrono>
#include <exception>
#include <future>
#include <mutex>

namespace mcprice::detail {

namespace {

// The parts' progress as one: each part reports its own (done, total) as it goes.
class summed_progress {
 public:
  summed_progress(const progress_callback& out, std::size_t parts) : out_(out), done_(parts, 0), total_(parts, 0) {}

  progress_callback part(std::size_t k)
  {
    if (!out_) return {};
    return [this, k](std::int64_t done, std::int64_t total) {
      std::lock_guard<std::mutex> lock(mutex_);
      done_[k] = done;
      total_[k] = total;
      std::int64_t d = 0;
      std::int64_t t = 0;
      for (std::size_t i = 0; i < done_.size(); ++i) {
        d += done_[i];
        t += total_[i];
      }
      out_(d, t);
    };
  }

 private:
  const progress_callback& out_;
  std::mutex mutex_;
  std::vector<std::int64_t> done_;
  std::vector<std::int64_t> total_;
};

}  // namespace

pricing_run price_split(const std::vector<engine>& devices, const market_data& market, const engine_options& options,
                        thread_cache& threads, const portfolio& book, const progress_callback& progress,
                        const std::atomic<bool>* cancel)
{
  auto const start = std::chrono::steady_clock::now();
  auto const split = split_by_cost(book, market, options, devices.size());
  summed_progress sums(progress, devices.size());
  std::vector<std::future<pricing_run>> others;
  std::exception_ptr failure;
  for (std::size_t k = 1; k < devices.size(); ++k) {
    try {
      others.push_back(threads.run([&, k] { return devices[k].price(select_trades(book, split[k]), sums.part(k), cancel); }));
    } catch (...) {
      failure = std::current_exception();
      break;
    }
  }
  std::vector<pricing_run> runs(devices.size());
  if (!failure) {
    try {
      runs[0] = devices[0].price(select_trades(book, split[0]), sums.part(0), cancel);
    } catch (...) {
      failure = std::current_exception();
    }
  }
  // Every started part is waited for, even after a failure: they refer to this frame.
  for (std::size_t k = 0; k < others.size(); ++k) {
    try {
      runs[k + 1] = others[k].get();
    } catch (...) {
      if (!failure) failure = std::current_exception();
    }
  }
  if (failure) std::rethrow_exception(failure);
  pricing_run run = merge_parts(std::move(runs), split, book.trades.size());
  run.summary.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return run;
}

}  // namespace mcprice::detail
