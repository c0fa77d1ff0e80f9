// Splitting a book across GPUs or ranks: the split's rules, and that pricing the parts apart
// gives one engine's bits (here with CPU engines standing in for the devices).
#include "catch.hpp"
#include "mcprice/market_reader.hpp"
#include "mcprice/portfolio_reader.hpp"
#include "mcprice/work_split.hpp"
#include "split_pricing.hpp"

#include <cstring>
#include <numeric>
#include <set>

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

}  // namespace

TEST_CASE("a split puts every trade in one part, in input order, balanced by cost")
{
  auto const market = read_market_file(std::string(MCPRICE_DATA_DIR) + "/sample_market.json");
  engine_options const o;
  portfolio book;
  // Costs 1..40 (x 1000 paths): the best 3-way split has 820/3 in each part.
  for (int i = 1; i <= 40; ++i) book.trades.push_back(vanilla("T" + std::to_string(i), 1000 * i));
  for (std::size_t parts : {1, 2, 3, 7}) {
    auto const split = split_by_cost(book, market, o, parts);
    REQUIRE(split.size() == parts);
    std::set<std::size_t> seen;
    double most = 0.0;
    double least = 1e300;
    for (auto const& part : split) {
      CHECK(std::is_sorted(part.begin(), part.end()));
      double cost = 0.0;
      for (std::size_t i : part) {
        CHECK(seen.insert(i).second);
        cost += estimated_cost(book.trades[i], market, o);
      }
      most = std::max(most, cost);
      least = std::min(least, cost);
    }
    CHECK(seen.size() == book.trades.size());
    // Longest-processing-time first: no part exceeds the best by more than the smallest trade's
    // share here, far inside the 4/3 bound.
    double const total = 820.0 * 1000.0;
    CHECK(most <= total / static_cast<double>(parts) + 1000.0 * 8);
    CHECK(most - least <= 40'000.0);
  }
  CHECK(split_by_cost(book, market, o, 3) == split_by_cost(book, market, o, 3));
  auto const many = split_by_cost(book, market, o, 50);
  CHECK(std::count_if(many.begin(), many.end(), [](auto const& p) { return p.empty(); }) == 10);
}

TEST_CASE("cost estimates follow paths, steps, assets, Heston and early exercise")
{
  auto const market = read_market_file(std::string(MCPRICE_DATA_DIR) + "/sample_market.json");
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

TEST_CASE("a book priced in parts on several engines has one engine's bits, in input order")
{
  auto const market = read_market_file(std::string(MCPRICE_DATA_DIR) + "/sample_market.json");
  auto const book = read_portfolio_file(std::string(MCPRICE_DATA_DIR) + "/sample_portfolio.csv");
  engine_options o;
  o.backend = backend_choice::cpu;
  o.paths = 4096;
  o.steps = 32;
  o.greeks = true;
  o.threads = 2;
  std::int64_t one_total = 0;
  auto const one = engine(market, o).price(book, [&](std::int64_t, std::int64_t t) { one_total = t; });
  std::vector<engine> parts;
  for (int k = 0; k < 3; ++k) parts.emplace_back(market, o);
  detail::thread_cache threads;
  std::int64_t last_done = -1;
  std::int64_t last_total = 0;
  auto const split = detail::price_split(parts, market, o, threads, book, [&](std::int64_t d, std::int64_t t) {
    last_done = d;
    last_total = t;
  }, nullptr);
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
  CHECK(last_done == last_total);
  CHECK(last_total == one_total);
}
