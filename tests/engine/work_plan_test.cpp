#include "planning/work_plan.hpp"
#include "catch.hpp"

using namespace mcprice;
using namespace mcprice::detail;

namespace {
std::vector<std::int64_t> trades_with_blocks(std::vector<std::int64_t> blocks, std::int64_t& total)
{
  std::vector<std::int64_t> first(blocks.size());
  total = 0;
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    first[i] = total;
    total += blocks[i];
  }
  return first;
}
std::size_t need(std::int64_t blocks, std::size_t segments)
{
  return 16 * static_cast<std::size_t>(blocks) + 16 * segments + 256;
}
}  // namespace

TEST_CASE("segments never cross trades and hold at most blocks_per_segment blocks")
{
  std::int64_t total = 0;
  auto const trades = trades_with_blocks({1, 2500, 1024, 3}, total);
  auto const plan = plan_segments(trades, total);
  REQUIRE(plan.segments.size() == 1 + 3 + 1 + 1);
  CHECK(plan.segments[1].blocks == 1024);
  CHECK(plan.segments[3].blocks == 2500 - 2048);
  CHECK(plan.segments[3].trade == 1);
  CHECK(plan.first_segment_of == std::vector<std::size_t>{0, 1, 4, 5, 6});
}

TEST_CASE("jobs cover every segment once, in order, within the cap")
{
  std::int64_t total = 0;
  auto const trades = trades_with_blocks({1, 2500, 1024, 3, 7000}, total);
  auto const plan = plan_segments(trades, total);
  for (std::size_t cap : {std::size_t{0}, std::size_t{20000}, std::size_t{40000}, std::size_t{1} << 20}) {
    auto const split = plan_jobs(plan, cap, std::int64_t{1} << 22, need);
    CHECK(split.trades_too_large.empty());
    std::size_t next = 0;
    for (auto const& j : split.jobs) {
      CHECK(j.first_segment == next);
      CHECK(j.end_segment > j.first_segment);
      if (cap != 0) CHECK(need(j.end_block(plan) - j.first_block(plan), j.end_segment - j.first_segment) <= cap);
      next = j.end_segment;
    }
    CHECK(next == plan.segments.size());
  }
  CHECK(plan_jobs(plan, 0, std::int64_t{1} << 22, need).jobs.size() == 1);
  CHECK(plan_jobs(plan, 0, 2048, need).jobs.size() > 1);
}

TEST_CASE("a cap too small for one segment fails exactly the trades whose segments do not fit")
{
  std::int64_t total = 0;
  auto const trades = trades_with_blocks({10, 1024, 5}, total);
  auto const plan = plan_segments(trades, total);
  auto const split = plan_jobs(plan, 1000, std::int64_t{1} << 22, need);
  CHECK(split.trades_too_large == std::vector<std::size_t>{1});
  CHECK(split.smallest_need == need(1024, 1));
  std::size_t covered = 0;
  for (auto const& j : split.jobs) {
    for (std::size_t s = j.first_segment; s < j.end_segment; ++s) {
      CHECK(plan.segments[s].trade != 1);
      ++covered;
    }
  }
  CHECK(covered == 2);
}

TEST_CASE("segment sums combine per trade front to back")
{
  std::int64_t total = 0;
  auto const trades = trades_with_blocks({1024, 2048}, total);
  auto const plan = plan_segments(trades, total);
  std::vector<moments> sums = {{1.0, 1.0}, {2.0, 4.0}, {3.0, 9.0}};
  auto const out = combine_segments(plan, sums, 2);
  CHECK(out[0].sum == 1.0);
  CHECK(out[1].sum == 5.0);
  CHECK(out[1].sum_sq == 13.0);
}
