// Multi-asset Europeans on correlated GBM against exact results: a basket of one asset is the
// vanilla; a zero-strike spread is Margrabe's exchange option; best-of and worst-of calls struck
// at zero follow from it (E max = E S2 + exchange, E min = E S1 - exchange).
#include "catch.hpp"
#include "mcprice/engine.hpp"
#include "mcprice/market_reader.hpp"
#include "pricing_cases.hpp"
#include "stulz_reference.hpp"

#include <cmath>

using namespace mcprice;
using namespace mcprice::testing;

namespace {

market_data two_asset_market(double rho)
{
  return parse_market(R"({"discount_curve": {"times": [0.5, 2], "zero_rates": [0.03, 0.045]},
    "assets": {"A": {"spot": 100, "dividend_yield": 0.01, "vol": {"times": [0.5, 2], "vols": [0.3, 0.25]}},
               "B": {"spot": 90, "dividend_yield": {"times": [1], "rates": [0.03]}, "vol": 0.2}},
    "correlation": {"A,B": )" +
                          std::to_string(rho) + "}}",
                      "two-assets");
}

trade multi(std::string id, product_kind p, option_type type, std::vector<std::string> names, double strike)
{
  trade t;
  t.id = std::move(id);
  t.product = p;
  t.type = type;
  t.underlyings = std::move(names);
  t.strike = strike;
  t.maturity = 1.5;
  return t;
}

// Forward, total variance and discount of asset `name` to T under the market's curves.
struct fwd {
  double f, w;
};
fwd forward(const market_data& m, const std::string& name, double T)
{
  const asset& a = m.assets()[*m.find(name)];
  return {a.spot * a.dividend.discount(T) / m.discount().discount(T), a.vol.total_variance(T)};
}

double exchange(const market_data& m, double rho, double T)
{
  auto const a = forward(m, "A", T);
  auto const b = forward(m, "B", T);
  double const v = a.w + b.w - 2.0 * rho * std::sqrt(a.w * b.w);
  black_scholes::inputs const in{a.f, b.f, v, m.discount().discount(T)};
  // Margrabe on forwards: Black's call with the second forward as the strike.
  return black_scholes::call(in);
}

void check_close(const trade_result& r, double reference)
{
  INFO(r.id << ": mc " << r.price << " +- " << r.std_error << ", reference " << reference << " " << r.message);
  REQUIRE(r.status == trade_status::ok);
  CHECK(std::abs(r.price - reference) <= 4.0 * r.std_error + 2e-6 * std::abs(reference));
}

}  // namespace

TEST_CASE("multi-asset Europeans match exchange-option identities under correlation and term structures")
{
  for (double rho : {0.6, -0.3}) {
    auto const m = two_asset_market(rho);
    double const T = 1.5;
    double const df = m.discount().discount(T);
    double const ex = exchange(m, rho, T);
    auto const a = forward(m, "A", T);
    auto const b = forward(m, "B", T);
    std::vector<trade> book = {multi("spread", product_kind::spread, option_type::call, {"A", "B"}, 0.0),
                               multi("best", product_kind::best_of, option_type::call, {"A", "B"}, 0.0),
                               multi("worst", product_kind::worst_of, option_type::call, {"A", "B"}, 0.0),
                               multi("one", product_kind::basket, option_type::put, {"A"}, 105.0)};
    engine_options o;
    o.backend = backend_choice::cpu;
    o.paths = 400'000;
    portfolio p;
    p.trades = book;
    auto const run = engine(m, o).price(p);
    INFO("rho " << rho);
    check_close(run.results[0], ex);
    check_close(run.results[1], df * b.f + ex);
    check_close(run.results[2], df * a.f - ex);
    check_close(run.results[3], black_scholes::put({a.f, 105.0, a.w, df}));
  }
}

TEST_CASE("a spread may be struck below zero: call less put is the discounted forward spread less the strike")
{
  auto const m = two_asset_market(0.6);
  double const T = 1.5;
  double const K = -15.0;
  engine_options o;
  o.backend = backend_choice::cpu;
  o.paths = 200'000;
  portfolio p;
  p.trades = {multi("c", product_kind::spread, option_type::call, {"A", "B"}, K),
              multi("p", product_kind::spread, option_type::put, {"A", "B"}, K)};
  auto const run = engine(m, o).price(p);
  REQUIRE(run.results[0].status == trade_status::ok);
  REQUIRE(run.results[1].status == trade_status::ok);
  double const parity = m.discount().discount(T) * (forward(m, "A", T).f - forward(m, "B", T).f - K);
  double const diff = run.results[0].price - run.results[1].price;
  double const se = std::hypot(run.results[0].std_error, run.results[1].std_error);
  INFO("call " << run.results[0].price << " put " << run.results[1].price << ", parity " << parity);
  CHECK(run.results[1].price > 0.0);  // B above A + 15 has some weight: both legs are priced
  CHECK(std::abs(diff - parity) <= 4.0 * se + 1e-6 * std::abs(parity));
  portfolio vanilla;
  vanilla.trades = {multi("v", product_kind::basket, option_type::call, {"A"}, K)};
  CHECK(engine(m, o).price(vanilla).results[0].message == "trade v: strike -15 must be >= 0");
}

TEST_CASE("basket weights default to equal and scale the assets; a spread needs two assets")
{
  auto const m = two_asset_market(0.6);
  trade equal = multi("eq", product_kind::basket, option_type::call, {"A", "B"}, 95.0);
  trade explicit_weights = equal;
  explicit_weights.weights = {0.5, 0.5};
  trade three = multi("sp3", product_kind::spread, option_type::call, {"A", "B", "A"}, 0.0);
  engine_options o;
  o.backend = backend_choice::cpu;
  o.paths = 20'000;
  portfolio p;
  p.trades = {equal, explicit_weights, three};
  auto const run = engine(m, o).price(p);
  CHECK(run.results[0].price == run.results[1].price);  // same id, so the same paths: equal weights are 1/2
  CHECK(run.results[2].message == "trade sp3: underlying lists 3 assets but a spread takes two");
}

TEST_CASE("a three-asset basket with a singular correlation matrix prices its forward exactly in mean")
{
  // A,B,C with rho(A,B) = 1: the matrix is positive semi-definite but singular; the eigen factor
  // must still reproduce it, and a zero-strike basket call is the discounted basket forward.
  auto const m = parse_market(R"({"rate": 0.03, "assets": {
      "A": {"spot": 100, "dividend_yield": 0.01, "vol": 0.3},
      "B": {"spot": 80, "vol": 0.2},
      "C": {"spot": 60, "dividend_yield": 0.02, "vol": 0.25}},
      "correlation": {"A,B": 1.0, "A,C": 0.4, "B,C": 0.4}})",
                              "three");
  trade basket = multi("b3", product_kind::basket, option_type::call, {"A", "B", "C"}, 0.0);
  basket.weights = {0.5, 0.3, 0.2};
  trade spread = multi("ab", product_kind::spread, option_type::call, {"A", "B"}, 0.0);
  engine_options o;
  o.backend = backend_choice::cpu;
  o.paths = 200'000;
  portfolio p;
  p.trades = {basket, spread};
  auto const run = engine(m, o).price(p);
  double const T = 1.5;
  double const df = std::exp(-0.03 * T);
  double const fwd = 0.5 * 100 * std::exp(-0.01 * T) + 0.3 * 80 + 0.2 * 60 * std::exp(-0.02 * T);
  check_close(run.results[0], fwd);  // sum of w S e^{-qT}: the discounted basket forward
  // Perfectly correlated A and B: the exchange option has variance (0.3 - 0.2)^2 T.
  black_scholes::inputs const in{100 * std::exp(-0.01 * T) / df, 80 / df, 0.01 * T, df};
  check_close(run.results[1], black_scholes::call(in));
}

TEST_CASE("best-of and worst-of calls and puts on two assets match Stulz's closed form")
{
  // Flat curves, so the closed form applies; strikes around the money and both signs of rho.
  for (double rho : {0.5, -0.4}) {
    auto const m = parse_market(R"({"rate": 0.04, "assets": {
        "A": {"spot": 100, "dividend_yield": 0.01, "vol": 0.3},
        "B": {"spot": 95, "dividend_yield": 0.02, "vol": 0.2}},
        "correlation": {"A,B": )" + std::to_string(rho) +
                                    "}}",
                                "stulz");
    two_assets const p{100, 95, 0.01, 0.02, 0.3, 0.2, rho, 0.04, 1.5};
    std::vector<trade> book;
    std::vector<double> refs;
    for (double K : {90.0, 105.0}) {
      for (bool max : {true, false}) {
        product_kind const kind = max ? product_kind::best_of : product_kind::worst_of;
        book.push_back(
            multi((max ? "best-call-" : "worst-call-") + std::to_string(K), kind, option_type::call, {"A", "B"}, K));
        refs.push_back(stulz_call(p, K, max));
        book.push_back(
            multi((max ? "best-put-" : "worst-put-") + std::to_string(K), kind, option_type::put, {"A", "B"}, K));
        refs.push_back(stulz_put(p, K, max));
      }
    }
    engine_options o;
    o.backend = backend_choice::cpu;
    o.paths = 400'000;
    portfolio port;
    port.trades = book;
    auto const run = engine(m, o).price(port);
    INFO("rho " << rho);
    for (std::size_t i = 0; i < book.size(); ++i) check_close(run.results[i], refs[i]);
  }
}

TEST_CASE("the Stulz reference itself: max + min calls are the two vanillas")
{
  two_assets const p{100, 95, 0.01, 0.02, 0.3, 0.2, 0.5, 0.04, 1.5};
  double const df = std::exp(-p.r * p.T);
  for (double K : {80.0, 100.0, 120.0}) {
    double const v1 = black_scholes::call({p.s1 * std::exp(-p.q1 * p.T) / df, K, p.vol1 * p.vol1 * p.T, df});
    double const v2 = black_scholes::call({p.s2 * std::exp(-p.q2 * p.T) / df, K, p.vol2 * p.vol2 * p.T, df});
    CHECK(std::abs(stulz_call(p, K, true) + stulz_call(p, K, false) - v1 - v2) < 1e-9);
  }
  CHECK(std::abs(bivariate_normal_cdf(0.0, 0.0, 0.5) - (0.25 + std::asin(0.5) / (2.0 * M_PI))) < 1e-12);
}
