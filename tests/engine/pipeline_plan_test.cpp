#include "planning/pipeline_plan.hpp"
#include "catch.hpp"
#include "planning/submission_order.hpp"

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

using namespace mcprice::detail;

namespace {
std::vector<std::size_t> sizes_of(const std::vector<std::size_t>& bounds)
{
  std::vector<std::size_t> sizes;
  for (std::size_t i = 1; i < bounds.size(); ++i) sizes.push_back(bounds[i] - bounds[i - 1]);
  return sizes;
}
}  // namespace

TEST_CASE("pipeline chunks grow by doubling from the first, then close with 2 x first and first")
{
  CHECK(sizes_of(pipeline_bounds(8192, 256)) == std::vector<std::size_t>{256, 512, 1024, 2048, 2048, 1536, 512, 256});
  CHECK(sizes_of(pipeline_bounds(768, 64)) == std::vector<std::size_t>{64, 128, 256, 128, 128, 64});
  // A remainder smaller than the first chunk joins the chunk before it.
  CHECK(sizes_of(pipeline_bounds(3 * 100 + 100 + 200 + 10, 100)) == std::vector<std::size_t>{100, 210, 200, 100});
}

TEST_CASE("a pipeline covers every trade once, in order, with the cap bounding the chunk count")
{
  for (std::size_t n :
       {std::size_t{3}, std::size_t{767}, std::size_t{768}, std::size_t{10'000}, std::size_t{1'000'003}}) {
    for (std::size_t first : {std::size_t{1}, std::size_t{64}, std::size_t{256}}) {
      auto const b = pipeline_bounds(n, first);
      INFO(n << " trades, first " << first);
      REQUIRE(b.front() == 0);
      REQUIRE(b.back() == n);
      for (std::size_t i = 1; i < b.size(); ++i) CHECK(b[i] > b[i - 1]);
      if (n >= 3 * first) {
        CHECK(b[1] - b[0] <= first);
        CHECK(b[b.size() - 1] - b[b.size() - 2] == first);
        CHECK(b.size() - 1 <= 40);
      } else {
        CHECK(b.size() == 2);
      }
    }
  }
  CHECK(pipeline_bounds(10'000, 0) == std::vector<std::size_t>{0, 10'000});
  CHECK(pipeline_bounds(0, 256) == std::vector<std::size_t>{0, 0});
}

TEST_CASE("chunks submit in order: chunk k waits until every family of the chunks before it has reported",
          "[concurrency]")
{
  submission_order order;
  std::atomic<int> turns{0};
  order.expect(0, 2);
  order.expect(1, 0);  // a chunk whose every trade failed its checks holds nobody up
  order.expect(2, 1);
  order.wait_turn(0);  // the first chunk never waits
  std::thread third([&] {
    order.wait_turn(2);
    turns = 3;
    order.submitted(2);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  CHECK(turns.load() == 0);  // chunk 0 has reported once of twice
  order.submitted(0);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  CHECK(turns.load() == 0);
  order.submitted(0);
  third.join();
  CHECK(turns.load() == 3);
  order.wait_turn(3);  // chunk 2 has reported too
}

TEST_CASE("chunks announced out of order, or abandoned, keep the order and hold nobody up", "[concurrency]")
{
  submission_order order;
  std::atomic<bool> second_went{false};
  order.expect(1, 1);  // the second chunk is prepared before the first
  std::thread second([&] {
    order.wait_turn(1);
    second_went = true;
    order.submitted(1);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  CHECK_FALSE(second_went.load());  // chunk 0 not announced yet: no turn for chunk 1
  order.abandon(0);                 // chunk 0's preparation failed
  second.join();
  CHECK(second_went.load());
  order.submitted(0);  // a report of an abandoned chunk is ignored
  order.wait_turn(2);
}
