// Splitting a book across GPUs or ranks: the split's rules, and that pricing the parts apart
// gives one engine's bits (here with CPU engines standing in for the devices, and ranges of one
// book priced side by side into one results vector).
#include "mcprice/work_split.hpp"
#include "catch.hpp"
#include "mcprice/input_error.hpp"
#include "mcprice/market_reader.hpp"
#include "mcprice/portfolio_reader.hpp"
#include "planning/split_pricing.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>

using namespace mcprice;

namespace {

trade vanilla(const std::string& id, std::int64_t paths)
{
  trade t;
  t.id = id;
  t.underlyings = {"ABC"};
  t.strike = 100.0;
  t.maturity = 1.0;
  t.paths = paths;
  return t;
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

market_data sample_market() { return read_market_file(std::string(MCPRICE_DATA_DIR) + "/sample_market.json"); }
portfolio sample_book() { return read_portfolio_file(std::string(MCPRICE_DATA_DIR) + "/sample_portfolio.csv"); }

// CPU engines standing in for GPUs: few paths, so the whole sample book prices quickly.
engine_options cpu_settings(unsigned threads)
{
  engine_options o;
  o.backend = backend_choice::cpu;
  o.paths = 4096;
  o.threads = threads;
  return o;
}

}  // namespace

TEST_CASE("a split cuts the book into consecutive ranges of about equal cost")
{
  auto const market = sample_market();
  engine_options const o;
  portfolio book;
  // Costs 1..40 (x 1000 paths, rising): 820,000 in all.
  for (int i = 1; i <= 40; ++i) book.trades.push_back(vanilla("T" + std::to_string(i), 1000 * i));
  for (std::size_t parts : {1, 2, 3, 7}) {
    INFO(parts << " parts");
    auto const split = split_by_cost(book, market, o, parts);
    REQUIRE(split.size() == parts);
    CHECK(split.front().begin == 0);
    CHECK(split.back().end == book.trades.size());
    double const share = 820'000.0 / static_cast<double>(parts);
    for (std::size_t k = 0; k < parts; ++k) {
      if (k > 0) CHECK(split[k].begin == split[k - 1].end);
      double cost = 0.0;
      for (std::size_t i = split[k].begin; i < split[k].end; ++i) cost += estimated_cost(book.trades[i], market, o);
      // Each cut lands within half a trade of its target, so a part is within one costliest
      // trade (40,000) of an equal share.
      CHECK(std::abs(cost - share) <= 40'000.0);
    }
  }
  CHECK(split_by_cost(book, market, o, 3) == split_by_cost(book, market, o, 3));
  auto const many = split_by_cost(book, market, o, 50);
  CHECK(std::count_if(many.begin(), many.end(), [](auto const& p) { return p.size() == 0; }) >= 10);
  CHECK(many.back().end == book.trades.size());
  portfolio const empty;
  auto const none = split_by_cost(empty, market, o, 2);
  CHECK((none.size() == 2 && none[0].size() == 0 && none[1].size() == 0));
  // One trade far costlier than the rest gets a part of its own.
  book.trades[20].paths = 100'000'000;
  auto const heavy = split_by_cost(book, market, o, 2);
  CHECK((heavy[0].end == 20 || heavy[0].end == 21));
}

TEST_CASE("parts priced apart merge back into input order")
{
  std::vector<pricing_run> parts(3);
  std::vector<trade_range> const ranges{{0, 2}, {2, 2}, {2, 5}};
  for (std::size_t k = 0; k < 3; ++k) {
    for (std::size_t i = ranges[k].begin; i < ranges[k].end; ++i) {
      trade_result r;
      r.id = "T" + std::to_string(i);
      parts[k].results.push_back(r);
    }
    parts[k].summary.trades = ranges[k].size();
    parts[k].summary.chunks = 1;
    parts[k].summary.timeline = {{"prepare", 0, 0, 0.1 * static_cast<double>(3 - k), 1.0, false, 0}};
  }
  auto const run = merge_parts(parts, ranges, 5);
  REQUIRE(run.results.size() == 5);
  for (std::size_t i = 0; i < 5; ++i) CHECK(run.results[i].id == "T" + std::to_string(i));
  CHECK(run.summary.trades == 5);
  CHECK(run.summary.chunks == 3);
  CHECK(run.summary.devices == 3);
  REQUIRE(run.summary.timeline.size() == 3);
  CHECK(run.summary.timeline.front().part == 2);  // sorted by begin, each keeping its part
  CHECK_THROWS(merge_parts(parts, {{0, 2}, {2, 3}, {3, 5}}, 5));
}

TEST_CASE("cost estimates follow paths, steps, assets, Heston and early exercise")
{
  auto const market = sample_market();
  engine_options o;
  o.steps = 100;
  trade const v = vanilla("V", 1000);
  CHECK(estimated_cost(v, market, o) == 1000.0);
  trade asian = v;
  asian.product = product_kind::asian;
  CHECK(estimated_cost(asian, market, o) == 100'000.0);
  trade heston = v;
  heston.underlyings = {"GHI"};  // the sample market's Heston asset
  CHECK(estimated_cost(heston, market, o) == 200'000.0);
  trade american = v;
  american.exercise = exercise_style::american;
  CHECK(estimated_cost(american, market, o) > estimated_cost(asian, market, o));
  trade bad = v;
  bad.row_error = "unreadable";
  CHECK(estimated_cost(bad, market, o) == 1.0);
}

TEST_CASE("a book priced in parts on several engines has one engine's bits, in input order", "[concurrency]")
{
  auto const market = sample_market();
  auto const book = sample_book();
  engine_options o = cpu_settings(2);
  o.steps = 32;
  o.greeks = true;
  std::int64_t one_total = 0;
  auto const one = engine(market, o).price(book, [&](std::int64_t, std::int64_t t) { one_total = t; });
  std::vector<engine> parts;
  for (int k = 0; k < 3; ++k) parts.emplace_back(market, o);
  detail::thread_cache threads;
  std::int64_t last_done = -1;
  std::int64_t last_total = 0;
  auto const split = detail::price_split(
      parts, market, threads, book,
      [&](std::int64_t d, std::int64_t t) {
        last_done = d;
        last_total = t;
      },
      nullptr);
  REQUIRE(split.results.size() == one.results.size());
  for (std::size_t i = 0; i < one.results.size(); ++i) {
    INFO(one.results[i].id);
    CHECK(split.results[i].id == one.results[i].id);
    CHECK(split.results[i].status == one.results[i].status);
    CHECK(split.results[i].message == one.results[i].message);
    CHECK(same_bits(split.results[i].price, one.results[i].price));
    CHECK(same_bits(split.results[i].std_error, one.results[i].std_error));
    CHECK(split.results[i].greeks.has_value() == one.results[i].greeks.has_value());
    if (one.results[i].greeks) {
      auto const a = split.results[i].greeks->all();
      auto const b = one.results[i].greeks->all();
      REQUIRE(a.size() == b.size());
      for (std::size_t g = 0; g < a.size(); ++g) CHECK(same_bits(a[g].value, b[g].value));
    }
  }
  CHECK(split.summary.trades == one.summary.trades);
  CHECK(split.summary.failed == one.summary.failed);
  CHECK(split.summary.paths == one.summary.paths);
  CHECK(split.summary.devices == 3);
  CHECK(split.summary.device_name == one.summary.device_name);
  CHECK(last_done == last_total);
  std::vector<trade_result> rows;
  CHECK_THROWS_AS(parts[0].price_range(book, 3, 2, rows), configuration_error);
  CHECK_THROWS_AS(parts[0].price_range(book, 0, book.trades.size() + 1, rows), configuration_error);
  CHECK(last_total == one_total);
}

TEST_CASE("a cancelled split run marks every range's trades, in input order", "[concurrency]")
{
  auto const market = sample_market();
  auto const book = sample_book();
  engine_options const o = cpu_settings(1);
  std::vector<engine> parts;
  for (int k = 0; k < 2; ++k) parts.emplace_back(market, o);
  detail::thread_cache threads;
  std::atomic<bool> const cancel{true};
  auto const run = detail::price_split(parts, market, threads, book, {}, &cancel);
  REQUIRE(run.results.size() == book.trades.size());
  for (std::size_t i = 0; i < book.trades.size(); ++i) {
    CHECK(run.results[i].id == book.trades[i].id);
    CHECK(run.results[i].status == trade_status::cancelled);
  }
  CHECK(run.summary.cancelled == book.trades.size());
}
