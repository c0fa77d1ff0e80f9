// Merton and Bates jumps on the CPU backend: Europeans against Merton's series and the Bates
// characteristic function, path products against the same where a far barrier leaves the
// European, Greeks and Sobol points (early exercise and baskets: jump_exercise_test.cpp).
#include "catch.hpp"
#include "heston_reference.hpp"
#include "mcprice/black_scholes.hpp"
#include "mcprice/engine.hpp"
#include "mcprice/market_reader.hpp"
#include "trade_on.hpp"

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

using namespace mcprice;
using namespace mcprice::testing;

namespace {

struct merton_case {
  double s, r, q, sigma, lambda, mean, vol;
};

// Merton (1976): given N jumps to T, Black's formula on the forward moved by the jumps' mean
// (the drift compensated) and the variance by theirs, summed over N's Poisson weights.
double merton_price(const merton_case& c, double k, double t, bool call)
{
  double const kappa = std::expm1(c.mean + 0.5 * c.vol * c.vol);
  double const discount = std::exp(-c.r * t);
  double total = 0.0;
  double weight = std::exp(-c.lambda * t);
  for (int n = 0; n < 200; ++n) {
    if (n > 0) weight *= c.lambda * t / n;
    double const forward =
        c.s * std::exp((c.r - c.q - c.lambda * kappa) * t + n * c.mean + 0.5 * n * c.vol * c.vol);
    black_scholes::inputs const in{forward, k, c.sigma * c.sigma * t + n * c.vol * c.vol, discount};
    total += weight * (call ? black_scholes::call(in) : black_scholes::put(in));
  }
  return total;
}

market_data merton_market(const merton_case& c)
{
  std::ostringstream m;
  m.precision(17);
  m << R"({"rate": )" << c.r << R"(, "assets": {"J": {"spot": )" << c.s << R"(, "dividend_yield": )" << c.q
    << R"(, "vol": )" << c.sigma << R"(, "jumps": {"intensity": )" << c.lambda << R"(, "mean": )" << c.mean
    << R"(, "vol": )" << c.vol << "}}}}";
  return parse_market(m.str(), "merton");
}

// An up-and-out call whose barrier no path reaches: the European call, through the path engine.
trade far_knock_out(const std::string& asset, double strike, double t)
{
  trade x = trade_on(asset, "far-up-and-out", product_kind::barrier, option_type::call, strike, t);
  x.barrier = 1e7;
  x.barrier_type = barrier_kind::up_out;
  x.monitoring = monitoring_kind::discrete;
  x.fixings = 24;
  return x;
}

pricing_run price_with(const market_data& m, std::vector<trade> trades, engine_options o)
{
  o.backend = backend_choice::cpu;
  portfolio book;
  book.trades = std::move(trades);
  return engine(m, o).price(book);
}

engine_options with_paths(std::int64_t paths, std::int64_t steps = 50)
{
  engine_options o;
  o.paths = paths;
  o.steps = steps;
  return o;
}

void check_near(const trade_result& r, double expected, double allowance)
{
  INFO(r.id << ": price " << r.price << " +- " << r.std_error << ", reference " << expected);
  REQUIRE(r.status == trade_status::ok);
  CHECK(std::abs(r.price - expected) <= 4.0 * r.std_error + allowance);
}

// Float paths, no discretisation bias (the jumps are exact between steps): rounding only.
double float_allowance(double price) { return 2e-4 * std::abs(price) + 2e-4; }

const merton_case merton_cases[] = {
    {100, 0.03, 0.01, 0.2, 0.5, -0.1, 0.15},  // equity-like crash jumps
    {100, 0.05, 0.0, 0.15, 3.0, -0.2, 0.3},   // strong jumps
    {50, 0.02, 0.0, 0.3, 1.0, 0.05, 0.05},    // small upward jumps
};

}  // namespace

TEST_CASE("Merton Europeans match the closed-form series within 4 standard errors")
{
  for (auto const& c : merton_cases) {
    double const k = c.s * 1.05;
    auto const run = price_with(merton_market(c),
                                {trade_on("J", "call", product_kind::vanilla, option_type::call, k, 1.0),
                                 trade_on("J", "put", product_kind::vanilla, option_type::put, k, 1.0),
                                 trade_on("J", "put-2y", product_kind::vanilla, option_type::put, c.s * 0.8, 2.0)},
                                with_paths(400000));
    check_near(run.results[0], merton_price(c, k, 1.0, true), float_allowance(run.results[0].price));
    check_near(run.results[1], merton_price(c, k, 1.0, false), float_allowance(run.results[1].price));
    check_near(run.results[2], merton_price(c, c.s * 0.8, 2.0, false), float_allowance(run.results[2].price));
  }
}

TEST_CASE("Merton paths step the jumps exactly: a barrier that no path reaches prices the European")
{
  for (auto const& c : merton_cases) {
    auto const run = price_with(merton_market(c), {far_knock_out("J", c.s, 1.0)}, with_paths(200000));
    check_near(run.results[0], merton_price(c, c.s, 1.0, true), float_allowance(run.results[0].price));
  }
}

TEST_CASE("Merton Europeans under Sobol points and in double precision")
{
  merton_case const c = merton_cases[0];
  engine_options o = with_paths(1 << 17);
  o.rng = rng_kind::sobol;
  auto const quasi = price_with(merton_market(c), {trade_on("J", "call", product_kind::vanilla, option_type::call, 100, 1)},
                                o);
  check_near(quasi.results[0], merton_price(c, 100, 1, true), float_allowance(quasi.results[0].price));
  engine_options d = with_paths(200000);
  d.precision = path_precision::float64;
  auto const exact = price_with(merton_market(c), {trade_on("J", "put", product_kind::vanilla, option_type::put, 100, 1)},
                                d);
  check_near(exact.results[0], merton_price(c, 100, 1, false), 1e-6);
}

TEST_CASE("Merton Greeks by scenario lanes agree with the series' differences")
{
  merton_case const c = merton_cases[0];
  engine_options o = with_paths(400000);
  o.greeks = true;
  auto const run =
      price_with(merton_market(c), {trade_on("J", "call", product_kind::vanilla, option_type::call, 100, 1)}, o);
  REQUIRE(run.results[0].status == trade_status::ok);
  REQUIRE(run.results[0].greeks);
  auto const& g = *run.results[0].greeks;
  double const h = 0.5;
  merton_case up = c;
  merton_case down = c;
  up.s += h;
  down.s -= h;
  double const delta = (merton_price(up, 100, 1, true) - merton_price(down, 100, 1, true)) / (2 * h);
  merton_case vu = c;
  merton_case vd = c;
  vu.sigma += 0.005;
  vd.sigma -= 0.005;
  double const vega = (merton_price(vu, 100, 1, true) - merton_price(vd, 100, 1, true)) / 0.01;
  INFO("delta " << g.delta.value << " +- " << g.delta.std_error << " vs " << delta << "; vega " << g.vega.value
                << " +- " << g.vega.std_error << " vs " << vega);
  CHECK(std::abs(g.delta.value - delta) <= 4 * g.delta.std_error + 2e-3);
  CHECK(std::abs(g.vega.value - vega) <= 4 * g.vega.std_error + 0.05);
}

TEST_CASE("jumps of intensity zero change no bits")
{
  auto const plain = parse_market(R"({"rate": 0.03, "assets": {"J": {"spot": 100, "vol": 0.2}}})", "plain");
  auto const zero = parse_market(
      R"({"rate": 0.03, "assets": {"J": {"spot": 100, "vol": 0.2, "jumps": {"intensity": 0, "mean": -0.1, "vol": 0.2}}}})",
      "zero");
  trade asian = trade_on("J", "asian", product_kind::asian, option_type::call, 100, 1);
  asian.fixings = 12;
  std::vector<trade> const book = {trade_on("J", "call", product_kind::vanilla, option_type::call, 100, 1), asian,
                                   far_knock_out("J", 100, 1)};
  auto const a = price_with(plain, book, with_paths(20000));
  auto const b = price_with(zero, book, with_paths(20000));
  for (std::size_t i = 0; i < book.size(); ++i) {
    CHECK(a.results[i].price == b.results[i].price);
    CHECK(a.results[i].std_error == b.results[i].std_error);
  }
}

TEST_CASE("Bates Europeans match the semi-analytic price within 4 standard errors plus the QE allowance", "[heavy]")
{
  heston_case const cases[] = {
      {100, 100, 1, 0.05, 0.0, 0.04, 2.0, 0.04, 0.3, -0.7, 0.5, -0.1, 0.1},
      {100, 90, 0.5, 0.03, 0.01, 0.0175, 1.5768, 0.0398, 0.5751, -0.5711, 1.0, 0.02, 0.05},
      {100, 110, 2, 0.02, 0.0, 0.09, 1.0, 0.09, 0.5, -0.5, 3.0, -0.25, 0.3},  // strong jumps
  };
  for (auto const& c : cases) {
    auto const run = price_with(heston_market(c),
                                {heston_trade_of("call", product_kind::vanilla, option_type::call, c.k, c.t),
                                 heston_trade_of("put", product_kind::vanilla, option_type::put, c.k, c.t),
                                 far_knock_out("H", c.k, c.t)},
                                with_paths(200000, 100));
    double const call = heston_call(c);
    check_near(run.results[0], call, 0.01);
    check_near(run.results[1], heston_put(c), 0.01);
    // The QE path with a jump step each step: the same European.
    check_near(run.results[2], call, 0.02);
  }
}
