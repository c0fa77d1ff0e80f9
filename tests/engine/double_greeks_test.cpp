// --greeks under --precision double on the CPU backend: single-asset GBM products' Greeks in
// double (Asians pathwise, the others by scenario lanes, vanillas and digitals as one-step
// paths) against Black-Scholes' and against the float Greeks; Heston Greeks in double against the
// semi-analytic price's and the float Greeks; bits across threads; products without double
// Greeks priced with empty Greek cells, counted.
#include "catch.hpp"
#include "heston_reference.hpp"
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

// Each Greek in double against float's with the same settings: other normals (never the float
// path rounded), so within 4 combined std errors.
void check_double_against_float(const market_data& m, const portfolio& book, std::int64_t paths)
{
  auto const d = price_with_greeks(m, book, path_precision::float64, paths);
  auto const f = price_with_greeks(m, book, path_precision::float32, paths);
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

// GBM asset X and Heston asset H.
market_data mixed_market()
{
  return parse_market(R"({"rate": 0.05, "assets": {"X": {"spot": 100, "vol": 0.25},
      "H": {"spot": 90, "model": "heston", "heston": {"v0": 0.04, "kappa": 1.5, "theta": 0.04, "xi": 0.5, "rho": -0.6}}}})",
                      "mixed");
}

trade on_h(std::string id, product_kind p, option_type type, double strike)
{
  trade t = on_x(std::move(id), p, type);
  t.underlyings = {"H"};
  t.strike = strike;
  return t;
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
  check_double_against_float(m, book, 100'000);
}

TEST_CASE("double Greeks keep their bits across threads and leave the prices' bits unchanged")
{
  auto const m = mixed_market();
  portfolio book;
  trade asian = on_x("asian", product_kind::asian, option_type::put);
  asian.strike = 100.0;
  asian.fixings = 52;
  trade touch = on_x("touch", product_kind::touch, option_type::one_touch);
  touch.barrier = 120.0;
  touch.barrier_type = barrier_kind::up;
  touch.payout = 10.0;
  trade heston_barrier = on_h("heston-uo-call", product_kind::barrier, option_type::call, 90.0);
  heston_barrier.barrier = 120.0;
  heston_barrier.barrier_type = barrier_kind::up_out;
  book.trades = {asian, touch, on_h("heston-put", product_kind::vanilla, option_type::put, 95.0), heston_barrier};
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

TEST_CASE("double Heston Greeks agree with derivatives of the semi-analytic price", "[heavy]")
{
  // The float test's case and band (greeks_test.cpp): 4 std errors plus 1% for the QE
  // discretisation (64 steps) and the bumps' own bias.
  testing::heston_case const base{100, 100, 1.0, 0.03, 0.01, 0.04, 2.0, 0.04, 0.3, -0.6};
  portfolio book;
  book.trades = {heston_trade_of("heston-call", product_kind::vanilla, option_type::call, 100, 1.0)};
  auto const run = price_with_greeks(heston_market(base), book, path_precision::float64, 400'000);
  REQUIRE(run.results[0].greeks);
  auto const& g = *run.results[0].greeks;
  CHECK(g.method == greek_method::central_bumps);
  auto const ref = testing::heston_call_greeks_of(base);
  double const expected[] = {ref.delta, ref.gamma, ref.vega, ref.theta, ref.rho};
  auto const rows = rows_of(g);
  for (std::size_t k = 0; k < rows.size(); ++k) {
    auto const& mc = rows[k].estimate;
    INFO(rows[k].name << ": mc " << mc.value << " +- " << mc.std_error << ", semi-analytic " << expected[k]);
    CHECK(std::abs(mc.value - expected[k]) <= 4.0 * mc.std_error + 0.01 * std::abs(expected[k]));
  }
}

TEST_CASE("double Greeks of Heston barriers, Asians and digitals agree with the float Greeks within their errors")
{
  portfolio book;
  trade barrier = on_h("heston-do-call", product_kind::barrier, option_type::call, 90.0);
  barrier.barrier = 75.0;
  barrier.barrier_type = barrier_kind::down_out;
  trade asian = on_h("heston-asian", product_kind::asian, option_type::put, 90.0);
  asian.fixings = 12;
  trade digital = on_h("heston-digital", product_kind::digital, option_type::call, 95.0);
  book.trades = {barrier, asian, digital};
  check_double_against_float(mixed_market(), book, 100'000);
}

TEST_CASE("double Greeks: early exercise has them; products without them are priced with empty Greek cells and counted")
{
  auto const m = parse_market(R"({"rate": 0.05, "assets": {"X": {"spot": 100, "vol": 0.25},
      "H": {"spot": 90, "model": "heston", "heston": {"v0": 0.04, "kappa": 1.5, "theta": 0.04, "xi": 0.5, "rho": -0.6}},
      "L": {"spot": 100, "model": "local_vol", "vol_surface": {"expiries": [0.5, 1, 2], "strikes": [60, 100, 150],
            "vols": [[0.3, 0.22, 0.21], [0.28, 0.22, 0.2], [0.27, 0.22, 0.2]]}}}})",
                              "mixed with local vol");
  trade vanilla = on_x("vanilla", product_kind::vanilla, option_type::put);
  vanilla.strike = 100.0;
  trade american = vanilla;
  american.id = "american";
  american.exercise = exercise_style::american;
  trade local_vol_american = american;
  local_vol_american.id = "local-vol american";
  local_vol_american.underlyings = {"L"};
  portfolio book;
  book.trades = {on_h("heston", product_kind::vanilla, option_type::call, 90.0), vanilla, american, local_vol_american};
  auto const run = price_with_greeks(m, book, path_precision::float64, 10'000);
  CHECK(run.results[0].greeks.has_value());
  CHECK(run.results[1].greeks.has_value());
  CHECK(run.results[2].greeks.has_value());
  // The walk has no sticky-strike grids for a spot bump on local vol, in either precision.
  CHECK(run.results[3].status == trade_status::ok);
  CHECK_FALSE(run.results[3].greeks.has_value());
  CHECK(run.summary.without_greeks == 1);
}
