#include "backends/gpu/stop_watch.hpp"
#include "catch.hpp"

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

using namespace mcprice::detail;
using namespace std::chrono_literals;

namespace {
// Waits up to a second for `done`, as a request's thread waits for its stop to be sent.
template <typename Done>
bool within_a_second(Done done)
{
  auto const until = std::chrono::steady_clock::now() + 1s;
  while (!done()) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(1ms);
  }
  return true;
}
}  // namespace

TEST_CASE("stop_watch: a watched request is polled from another thread while its own thread is blocked", "[stop]")
{
  std::thread::id started_on;
  stop_watch watch([&] { started_on = std::this_thread::get_id(); });
  std::atomic<bool> cancelled{false};
  std::atomic<int> stops_sent{0};
  std::atomic<std::thread::id> polled_on{};
  auto entry = watch.watch([&] {
    polled_on = std::this_thread::get_id();
    if (cancelled && stops_sent == 0) ++stops_sent;
  });
  // The request's thread (this one) is busy elsewhere; the caller cancels.
  std::this_thread::sleep_for(5ms);
  CHECK(stops_sent == 0);
  cancelled = true;
  REQUIRE(within_a_second([&] { return stops_sent == 1; }));
  CHECK(polled_on.load() != std::this_thread::get_id());
  CHECK(polled_on.load() == started_on);
  CHECK(entry.reset() == nullptr);
}

TEST_CASE("stop_watch: once an entry is reset its poll never runs again", "[stop]")
{
  stop_watch watch({});
  std::atomic<int> polls{0};
  auto entry = watch.watch([&] { ++polls; });
  REQUIRE(within_a_second([&] { return polls > 0; }));
  CHECK(entry.reset() == nullptr);
  int const at_reset = polls;
  std::this_thread::sleep_for(10 * stop_watch::period);
  CHECK(polls == at_reset);
  CHECK(entry.reset() == nullptr);  // twice is harmless
}

TEST_CASE("stop_watch: a poll that throws is not run again, and its error goes to the request", "[stop]")
{
  stop_watch watch({});
  std::atomic<int> polls{0};
  std::atomic<int> others{0};
  auto failing = watch.watch([&] {
    ++polls;
    throw std::runtime_error("stop copy: device lost");
  });
  auto other = watch.watch([&] { ++others; });
  REQUIRE(within_a_second([&] { return others > 5; }));
  CHECK(polls == 1);  // the other request is still polled
  std::exception_ptr const failure = failing.reset();
  REQUIRE(failure != nullptr);
  CHECK_THROWS_WITH(std::rethrow_exception(failure), "stop copy: device lost");
  CHECK(other.reset() == nullptr);
}

TEST_CASE("stop_watch: a watch that cannot start fails each request with why", "[stop]")
{
  stop_watch watch([] { throw std::runtime_error("cudaSetDevice(3): invalid device ordinal"); });
  std::atomic<int> polls{0};
  auto entry = watch.watch([&] { ++polls; });
  std::this_thread::sleep_for(20 * stop_watch::period);
  std::exception_ptr const failure = entry.reset();
  REQUIRE(failure != nullptr);
  CHECK_THROWS_WITH(std::rethrow_exception(failure), "cudaSetDevice(3): invalid device ordinal");
  CHECK(polls == 0);
}

TEST_CASE("stop_watch: many threads watch and reset at once; the watch idles and wakes again", "[stop][concurrency]")
{
  stop_watch watch({});
  std::atomic<long> polls{0};
  std::atomic<int> failures{0};  // Catch's assertions are for the test's own thread
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 200; ++i) {
        auto entry = watch.watch([&] { ++polls; });
        if (i % 50 == 0) std::this_thread::sleep_for(2 * stop_watch::period);
        if (entry.reset() != nullptr) ++failures;
      }
    });
  }
  for (auto& t : threads) t.join();
  CHECK(failures == 0);
  CHECK(polls > 0);
  // Idle now; a new entry wakes it.
  std::this_thread::sleep_for(5 * stop_watch::period);
  std::atomic<bool> seen{false};
  auto late = watch.watch([&] { seen = true; });
  CHECK(within_a_second([&] { return seen.load(); }));
}
