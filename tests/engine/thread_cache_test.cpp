#include "runtime/thread_cache.hpp"
#include "catch.hpp"
#include "runtime/parallel_for.hpp"

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

using namespace mcprice::detail;

TEST_CASE("kept threads run every task, reuse idle threads, and let tasks wait on each other", "[concurrency]")
{
  thread_cache threads;
  CHECK(threads.run([] { return 6 * 7; }).get() == 42);
  std::this_thread::sleep_for(std::chrono::milliseconds(5));  // the thread is idle again
  CHECK(threads.run([] { return 1; }).get() == 1);
  CHECK(threads.threads() == 1);
  // A task blocked on a later task never deadlocks: the later one gets a thread of its own.
  std::promise<int> later;
  auto waiting = threads.run([f = later.get_future().share()] { return f.get() + 1; });
  auto second = threads.run([&later] { later.set_value(41); });
  CHECK(waiting.get() == 42);
  second.get();
  CHECK(threads.threads() >= 2);
  CHECK_THROWS_AS(threads.run([]() -> int { throw std::runtime_error("task failed"); }).get(), std::runtime_error);
}

TEST_CASE("parallel_for on kept threads visits each index once and passes on the first failure", "[concurrency]")
{
  thread_cache threads;
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{255}, std::size_t{10'000}}) {
    std::vector<std::atomic<int>> seen(n);
    parallel_for(
        threads, n, [&](std::size_t i) { seen[i].fetch_add(1); }, 64);
    for (std::size_t i = 0; i < n; ++i) REQUIRE(seen[i].load() == 1);
  }
  CHECK_THROWS_AS(parallel_for(
                      threads, 4096,
                      [](std::size_t i) {
                        if (i == 3000) throw std::runtime_error("row 3000");
                      },
                      64),
                  std::runtime_error);
  // Nested: a piece that runs its own parallel_for on the same threads.
  std::atomic<std::size_t> total{0};
  parallel_for(
      threads, 8,
      [&](std::size_t) {
        parallel_for(
            threads, 1000, [&](std::size_t) { total.fetch_add(1); }, 100);
      },
      1);
  CHECK(total.load() == 8000);
}
