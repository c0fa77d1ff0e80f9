#include "planning/split_pricing.hpp"

#include "chunk_pricing.hpp"
#include "mcprice/work_split.hpp"

#include <chrono>
#include <exception>
#include <future>

namespace mcprice::detail {

pricing_run price_split(const std::vector<engine>& devices, const market_data& market, thread_cache& threads,
                        const portfolio& book, const progress_callback& progress, const std::atomic<bool>* cancel)
{
  auto const start = std::chrono::steady_clock::now();
  auto const ranges = split_by_cost(book, market, devices.front().options(), devices.size());
  progress_sum sums(progress);
  pricing_run run;
  std::shared_future<void> const sized = threads.run([&run, n = book.trades.size()] { run.results.resize(n); }).share();
  std::vector<run_summary> summaries(devices.size());
  std::vector<std::future<void>> others;
  std::exception_ptr failure;
  auto part = [&](std::size_t k) {
    summaries[k] =
        devices[k].price_range(book, ranges[k].begin, ranges[k].end, run.results, sums.for_slot(k), cancel, sized);
  };
  for (std::size_t k = 1; k < devices.size(); ++k) {
    try {
      others.push_back(threads.run([&part, k] { part(k); }));
    } catch (...) {
      failure = std::current_exception();
      break;
    }
  }
  if (!failure) {
    try {
      part(0);
    } catch (...) {
      failure = std::current_exception();
    }
  }
  // Every started range is waited for, even after a failure: they write into run.results.
  for (auto& f : others) {
    try {
      f.get();
    } catch (...) {
      if (!failure) failure = std::current_exception();
    }
  }
  sized.wait();
  if (failure) std::rethrow_exception(failure);
  run.summary = merge_summaries(summaries);
  run.summary.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return run;
}

}  // namespace mcprice::detail
