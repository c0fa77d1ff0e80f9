// --greeks under --precision double on the CPU backend: single-asset GBM products' Greeks in
// double (Asians pathwise, the others by scenario lanes, vanillas and digitals as one-step
// paths) against Black-Scholes' and against the float Greeks; bits across threads; products
// without double Greeks priced with empty Greek cells, counted; the GPU backend refused.
#include "catch.hpp"
#include "mcprice/engine.hpp"
#include "mcprice/input_error.hpp"
#include "mcprice/market_reader.hpp"
#include "path_book.hpp"
#include "pricing_cases.hpp"
#include "result_bits.hpp"

#include <cmath>
#include <cstring>

using namespace mcprice;
using namespace mcprice::testing;

namespace {

pricing_run price_with_greeks(const market_data& m, const portfolio& book, path_precision precision,
                              std::int64_t paths, unsigned threads = 0)
{
  engine_options o;
  o.backend = backend_choice::cpu;
  o.precision = precision;
  o.greeks = true;
  o.paths = paths;
  o.steps = 64;
  o.threads = threads;
  return engine(m, o).price(book);
}

struct greek_row {
  const char* name;
  greek_estimate estimate;
};

std::vector<greek_row> rows_of(const trade_greeks& g)
{
  return {{"delta", g.delta}, {"gamma", g.gamma}, {"vega", g.vega}, {"theta", g.theta}, {"rho", g.rho}};
}

}  // namespace

TEST_CASE("double Greeks of vanillas and digitals (scenario lanes on one-step paths) match Black-Scholes")
{
  auto const book = reference_book();
  auto const m = test_market();
  auto const run = price_with_greeks(m, book, path_precision::float64, 200'000);
  REQUIRE(run.results.size() == book.trades.size());
  for (std::size_t i = 0; i < book.trades.size(); ++i) {
    auto const& r = run.results[i];
    REQUIRE(r.status == trade_status::ok);
    REQUIRE(r.greeks.has_value());
    CHECK(r.greeks->method == greek_method::central_bumps);
    auto const ref = reference_greeks(book.trades[i], m);
    double const expected[] = {ref.delta, ref.gamma, ref.vega, ref.theta, ref.rho};
    auto const rows = rows_of(*r.greeks);
    for (std::size_t g = 0; g < rows.size(); ++g) {
      auto const& mc = rows[g].estimate;
      INFO(r.id << " " << rows[g].name << ": mc " << mc.value << " +- " << mc.std_error << ", Black-Scholes "
                << expected[g]);
      // Central differences: spot +-1%, vol +-0.01, rate +-1e-3, a day of time; their bias is
      // second order in the bump (about (1%)^2 / 6 of the next derivative): 2% of the value.
      CHECK(std::abs(mc.value - expected[g]) <= 4.0 * mc.std_error + 0.02 * std::abs(expected[g]) + 1e-6);
    }
  }
}

TEST_CASE("double Greeks of Asians, barriers and lookbacks agree with the float Greeks within their errors")
{
  auto const m = flat_x_market();
  portfolio book;
  trade asian = on_x("asian", product_kind::asian, option_type::call);
  asian.strike = 100.0;
  asian.fixings = 12;
  trade barrier = on_x("do-call", product_kind::barrier, option_type::call);
  barrier.strike = 100.0;
  barrier.barrier = 85.0;
  barrier.barrier_type = barrier_kind::down_out;
  trade lookback = on_x("lookback", product_kind::lookback, option_type::call);
  lookback.strike_type = strike_kind::floating;
  book.trades = {asian, barrier, lookback};
  auto const d = price_with_greeks(m, book, path_precision::float64, 100'000);
  auto const f = price_with_greeks(m, book, path_precision::float32, 100'000);
  for (std::size_t i = 0; i < book.trades.size(); ++i) {
    REQUIRE(d.results[i].status == trade_status::ok);
    REQUIRE(d.results[i].greeks.has_value());
    REQUIRE(f.results[i].greeks.has_value());
    CHECK(d.results[i].greeks->method == f.results[i].greeks->method);
    auto const dr = rows_of(*d.results[i].greeks);
    auto const fr = rows_of(*f.results[i].greeks);
    for (std::size_t g = 0; g < dr.size(); ++g) {
      auto const& a = dr[g].estimate;
      auto const& b = fr[g].estimate;
      INFO(d.results[i].id << " " << dr[g].name << ": double " << a.value << " +- " << a.std_error << ", float "
                           << b.value << " +- " << b.std_error);
      CHECK(a.value != b.value);  // other normals, not the float path rounded
      CHECK(std::abs(a.value - b.value) <= 4.0 * std::hypot(a.std_error, b.std_error) + 1e-6);
    }
  }
}

TEST_CASE("double Greeks keep their bits across threads and leave the prices' bits unchanged")
{
  auto const m = flat_x_market();
  portfolio book;
  trade asian = on_x("asian", product_kind::asian, option_type::put);
  asian.strike = 100.0;
  asian.fixings = 52;
  trade touch = on_x("touch", product_kind::touch, option_type::one_touch);
  touch.barrier = 120.0;
  touch.barrier_type = barrier_kind::up;
  touch.payout = 10.0;
  book.trades = {asian, touch};
  auto const one = price_with_greeks(m, book, path_precision::float64, 20'003, 1);
  auto const two = price_with_greeks(m, book, path_precision::float64, 20'003, 2);
  CHECK(same_result_bits(one, two));
  for (std::size_t i = 0; i < book.trades.size(); ++i) {
    REQUIRE(one.results[i].greeks.has_value());
    for (std::size_t g = 0; g < 5; ++g) {
      double const a = rows_of(*one.results[i].greeks)[g].estimate.value;
      double const b = rows_of(*two.results[i].greeks)[g].estimate.value;
      CHECK(std::memcmp(&a, &b, sizeof a) == 0);
    }
  }
  engine_options o;
  o.backend = backend_choice::cpu;
  o.precision = path_precision::float64;
  o.paths = 20'003;
  o.steps = 64;
  o.threads = 1;
  CHECK(same_result_bits(one, engine(m, o).price(book)));
}

TEST_CASE("double Greeks: products without them are priced with empty Greek cells and counted")
{
  auto const m = parse_market(R"({"rate": 0.05, "assets": {"X": {"spot": 100, "vol": 0.25},
      "H": {"spot": 90, "model": "heston", "heston": {"v0": 0.04, "kappa": 1.5, "theta": 0.04, "xi": 0.5, "rho": -0.6}}}})",
                              "mixed");
  trade heston = on_x("heston", product_kind::vanilla, option_type::call);
  heston.underlyings = {"H"};
  heston.strike = 90.0;
  trade vanilla = on_x("vanilla", product_kind::vanilla, option_type::put);
  vanilla.strike = 100.0;
  trade american = vanilla;
  american.id = "american";
  american.exercise = exercise_style::american;
  portfolio book;
  book.trades = {heston, vanilla, american};
  auto const run = price_with_greeks(m, book, path_precision::float64, 10'000);
  CHECK(run.results[0].status == trade_status::ok);
  CHECK_FALSE(run.results[0].greeks.has_value());
  CHECK(run.results[1].greeks.has_value());
  CHECK(run.results[2].status == trade_status::ok);
  CHECK_FALSE(run.results[2].greeks.has_value());
  CHECK(run.summary.without_greeks == 2);
}
