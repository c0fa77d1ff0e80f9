#pragma once
// Host-side per-trade work (checks, kernel records, results) spread over a few threads when a
// book is large enough to pay for them. Each index is visited exactly once; f must only touch
// its own index's outputs.
#include <algorithm>
#include <cstddef>
#include <future>
#include <thread>
#include <vector>

namespace mcprice::detail {

// min_per_thread: the least work worth a thread of its own (thread start-up is some 10 us).
template <typename F>
void parallel_for(std::size_t n, F&& f, std::size_t min_per_thread = 2048)
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
    workers.push_back(std::async(std::launch::async, [&, t] {
      for (std::size_t i = t * chunk; i < std::min(n, (t + 1) * chunk); ++i) f(i);
    }));
  }
  for (std::size_t i = 0; i < std::min(n, chunk); ++i) f(i);
  for (auto& w : workers) w.get();
}

}  // namespace mcprice::detail
