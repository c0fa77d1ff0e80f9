#include "catch.hpp"
#include "mcprice/engine.hpp"
#include "mcprice/geometric_asian.hpp"
#include "mcprice/input_error.hpp"
#include "path_book.hpp"
#include "pricing_cases.hpp"

#include <cmath>
#include <cstring>

using namespace mcprice;
using namespace mcprice::testing;

namespace {

engine_options sobol_options(std::int64_t paths, int replicates = 32, std::uint64_t seed = 42)
{
  engine_options o;
  o.backend = backend_choice::cpu;
  o.paths = paths;
  o.seed = seed;
  o.steps = 64;
  o.rng = rng_kind::sobol;
  o.rqmc_replicates = replicates;
  return o;
}

trade asian(std::string id, averaging_kind avg)
{
  trade t = make_trade(std::move(id), product_kind::asian, option_type::call, "CURVE", 50.0, 1.0);
  t.averaging = avg;
  t.fixings = 64;
  return t;
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

}  // namespace

TEST_CASE("Sobol prices agree with the closed forms, with paths the replicates' total")
{
  auto const market = test_market();
  auto const book = reference_book();
  auto const run = engine(market, sobol_options(100'000)).price(book);
  for (std::size_t i = 0; i < book.trades.size(); ++i) {
    auto const& r = run.results[i];
    double const ref = reference_price(book.trades[i], market);
    INFO(r.id << ": qmc " << r.price << " +- " << r.std_error << ", reference " << ref << " " << r.message);
    REQUIRE(r.status == trade_status::ok);
    CHECK(r.paths == 32 * 4096);  // 100,000 / 32 = 3125 -> 2048 antithetic pairs a replicate
    CHECK(std::abs(r.price - ref) <= price_tolerance(r.std_error, ref));
  }
}

TEST_CASE("Sobol geometric Asians match the closed form, far tighter than Philox")
{
  auto const m = test_market();
  const asset& curve = m.assets()[*m.find("CURVE")];
  portfolio book;
  book.trades = {asian("geo", averaging_kind::geometric)};
  std::vector<double> fixings;
  for (int i = 1; i <= 64; ++i) fixings.push_back(i / 64.0);
  double const ref = geometric_asian_price(m, curve, fixings, 1.0, 50.0, true, false);
  auto const quasi = engine(m, sobol_options(1 << 16)).price(book).results[0];
  engine_options pseudo = sobol_options(1 << 16);
  pseudo.rng = rng_kind::pseudo;
  auto const plain = engine(m, pseudo).price(book).results[0];
  INFO("qmc " << quasi.price << " +- " << quasi.std_error << ", philox +- " << plain.std_error << ", ref " << ref);
  CHECK(std::abs(quasi.price - ref) <= 4 * quasi.std_error + 1e-5 * ref);
  CHECK(quasi.std_error * quasi.std_error * 30 < plain.std_error * plain.std_error);
}

TEST_CASE("Sobol runs are bit-identical across runs and thread counts, and move with the seed")
{
  auto const m = test_market();
  portfolio book = reference_book();
  book.trades.push_back(asian("arith", averaging_kind::arithmetic));
  auto o = sobol_options(20'000, 8);
  o.threads = 1;
  auto const a = engine(m, o).price(book);
  o.threads = 3;
  auto const b = engine(m, o).price(book);
  o.seed = 43;
  auto const c = engine(m, o).price(book);
  for (std::size_t i = 0; i < book.trades.size(); ++i) {
    CHECK(same_bits(a.results[i].price, b.results[i].price));
    CHECK(same_bits(a.results[i].std_error, b.results[i].std_error));
    if (a.results[i].std_error > 0) CHECK(!same_bits(a.results[i].price, c.results[i].price));
  }
}

namespace {

// How many of `seeds` runs' 95% intervals hold each trade's exact price.
std::vector<int> covered_of(const market_data& m, const portfolio& book, const std::vector<double>& refs, int seeds)
{
  std::vector<int> covered(refs.size(), 0);
  for (int s = 0; s < seeds; ++s) {
    auto const run = engine(m, sobol_options(16 * 64, 16, 1000 + s)).price(book);
    for (std::size_t k = 0; k < refs.size(); ++k) {
      auto const& r = run.results[k];
      if (r.ci_low <= refs[k] && refs[k] <= r.ci_high) ++covered[k];
    }
  }
  return covered;
}

}  // namespace

TEST_CASE("Sobol confidence intervals cover the exact price about 95% of the time")
{
  // 200 independent seeds, small paths: a European call, a geometric Asian, and a continuously
  // monitored down-and-out call (the bridge's crossing probability: exact at any step count).
  constexpr int seeds = 200;
  auto const m = test_market();
  const asset& curve = m.assets()[*m.find("CURVE")];
  portfolio book;
  book.trades = {make_trade("call", product_kind::vanilla, option_type::call, "FLAT", 105.0, 1.0),
                 asian("geo", averaging_kind::geometric)};
  std::vector<double> fixings;
  for (int i = 1; i <= 64; ++i) fixings.push_back(i / 64.0);
  auto covered = covered_of(m, book,
                            {reference_price(book.trades[0], m),
                             geometric_asian_price(m, curve, fixings, 1.0, 50.0, true, false)},
                            seeds);
  portfolio barrier;
  trade doc = on_x("down-and-out", product_kind::barrier, option_type::call);
  doc.strike = 100.0;
  doc.barrier = 85.0;
  doc.barrier_type = barrier_kind::down_out;
  barrier.trades = {doc};
  covered.push_back(covered_of(flat_x_market(), barrier, {knock_out_by_reflection(flat_x, 100.0, 85.0, true)}, seeds)[0]);
  for (std::size_t k = 0; k < covered.size(); ++k) {
    INFO("trade " << k << " covered " << covered[k] << " of " << seeds);
    CHECK(covered[k] >= 0.92 * seeds - 4);  // 92-98%, with 1.5 binomial sd of slack
    CHECK(covered[k] <= 0.98 * seeds + 4);
  }
}

TEST_CASE("bad Sobol settings are refused, naming the option")
{
  auto const m = test_market();
  CHECK_THROWS_WITH(engine(m, sobol_options(1000, 1)), Catch::Contains("--rqmc-replicates 1"));
  CHECK_THROWS_WITH(engine(m, sobol_options(100, 101)), Catch::Contains("paths = 100"));
}

TEST_CASE("a trade needing more Sobol dimensions than there are fails alone, with the count")
{
  auto const m = test_market();
  portfolio book;
  trade t = make_trade("long", product_kind::asian, option_type::call, "FLAT", 100.0, 1.0);
  t.fixings = 30000;
  t.steps = 30000;
  book.trades = {t, make_trade("ok", product_kind::vanilla, option_type::call, "FLAT", 100.0, 1.0)};
  auto const run = engine(m, sobol_options(4096, 4)).price(book);
  CHECK(run.results[0].status == trade_status::error);
  CHECK_THAT(run.results[0].message, Catch::Contains("Sobol dimensions"));
  CHECK(run.results[1].status == trade_status::ok);
}
