#pragma once
// Host-side per-trade work (checks, kernel records, results) spread over a few threads when a
// book is large enough to pay for them. Each index is visited exactly once; f must only touch
// its own index's outputs.
#include "thread_cache.hpp"

#include <algorithm>
#include <cstddef>
#include <future>
#include <thread>
#include <vector>

namespace mcprice::detail {

// start(task) runs a task on another thread and returns its std::future<void>.
template <typename Start, typename F>
void parallel_for_on(Start&& start, std::size_t n, F&& f, std::size_t min_per_thread)
{
  std::size_t const hw = std::max(1U, std::thread::hardware_concurrency());
  std::size_t const threads = std::min<std::size_t>({hw, 8, (n + min_per_thread - 1) / min_per_thread});
  if (threads <= 1) {
    for (std::size_t i = 0; i < n; ++i) f(i);
    return;
  }
  std::size_t const chunk = (n + threads - 1) / threads;
  std::vector<std::future<void>> workers;
  for (std::size_t t = 1; t < threads; ++t) {
    workers.push_back(start([&, t] {
      for (std::size_t i = t * chunk; i < std::min(n, (t + 1) * chunk); ++i) f(i);
    }));
  }
  for (std::size_t i = 0; i < std::min(n, chunk); ++i) f(i);
  for (auto& w : workers) w.get();
}

// min_per_thread: the least work worth a thread of its own (thread start-up is some 10 us).
template <typename F>
void parallel_for(std::size_t n, F&& f, std::size_t min_per_thread = 2048)
{
  parallel_for_on([](auto task) { return std::async(std::launch::async, std::move(task)); }, n, std::forward<F>(f),
                  min_per_thread);
}

// The same on an engine's kept threads (no thread start-up).
template <typename F>
void parallel_for(thread_cache& threads, std::size_t n, F&& f, std::size_t min_per_thread = 2048)
{
  parallel_for_on([&threads](auto task) { return threads.run(std::move(task)); }, n, std::forward<F>(f), min_per_thread);
}

}  // namespace mcprice::detail
