// Multi-asset products over a Heston and a GBM asset: with no correlation, a spread's price is
// the GBM leg's expectation of the Heston leg's semi-analytic price at the strike that leg sets
// (an integral done numerically here); early exercise on mixed models is refused with the reason.
#include "catch.hpp"
#include "heston_reference.hpp"
#include "mcprice/engine.hpp"
#include "mcprice/market_reader.hpp"

#include <cmath>
#include <sstream>

using namespace mcprice;
using namespace mcprice::testing;

namespace {

// H: the Heston case's asset; G: GBM with spot g_spot and vol g_vol, independent of H.
market_data mixed_market(const heston_case& c, double g_spot, double g_vol)
{
  std::ostringstream m;
  m.precision(17);
  m << R"({"rate": )" << c.r << R"(, "assets": {"H": {"spot": )" << c.s << R"(, "dividend_yield": )" << c.q
    << R"(, "model": "heston", "heston": {"v0": )" << c.v0 << R"(, "kappa": )" << c.kappa << R"(, "theta": )" << c.theta
    << R"(, "xi": )" << c.xi << R"(, "rho": )" << c.rho << R"(}}, "G": {"spot": )" << g_spot << R"(, "vol": )" << g_vol
    << "}}}";
  return parse_market(m.str(), "mixed");
}

// E over G_T of f(G_T), G log-normal under the pricing measure (no dividend): Simpson in the
// normal's z over [-8, 8].
template <typename F>
double over_gbm_leg(double g_spot, double g_vol, double r, double t, F&& f)
{
  int const n = 400;
  double const lo = -8.0;
  double const h = 16.0 / n;
  double sum = 0.0;
  for (int i = 0; i <= n; ++i) {
    double const z = lo + i * h;
    double const g = g_spot * std::exp((r - 0.5 * g_vol * g_vol) * t + g_vol * std::sqrt(t) * z);
    double const weight = (i == 0 || i == n) ? 1.0 : (i % 2 == 1 ? 4.0 : 2.0);
    sum += weight * std::exp(-0.5 * z * z) / std::sqrt(2.0 * M_PI) * f(g);
  }
  return sum * h / 3.0;
}

trade spread_on(std::string id, std::vector<std::string> legs, option_type type, double strike, double t)
{
  trade x;
  x.id = std::move(id);
  x.product = product_kind::spread;
  x.type = type;
  x.underlyings = std::move(legs);
  x.strike = strike;
  x.maturity = t;
  return x;
}

}  // namespace

TEST_CASE("a Heston/GBM spread under zero correlation matches the conditional integral", "[heavy]")
{
  heston_case const c{100, 0, 1, 0.03, 0.0, 0.04, 1.5, 0.05, 0.5, -0.7};
  engine_options o;
  o.backend = backend_choice::cpu;
  o.paths = 400000;
  o.steps = 100;
  double const g_vol = 0.25;
  SECTION("the Heston leg first: (H - G - K)+, a Heston call at strike K + G_T averaged over G_T")
  {
    double const g_spot = 40.0;
    double const k = 55.0;
    portfolio book;
    book.trades = {spread_on("H-G call", {"H", "G"}, option_type::call, k, c.t)};
    auto const run = engine(mixed_market(c, g_spot, g_vol), o).price(book);
    double const ref = over_gbm_leg(g_spot, g_vol, c.r, c.t, [&](double g) {
      heston_case at = c;
      at.k = k + g;
      return heston_call(at);
    });
    auto const& r = run.results[0];
    INFO(r.id << ": " << r.price << " +- " << r.std_error << ", reference " << ref << " " << r.message);
    REQUIRE(r.status == trade_status::ok);
    // 4 std errors and the QE scheme's bias at 100 steps (heston_pricing_test.cpp's allowance).
    CHECK(std::abs(r.price - ref) <= 4.0 * r.std_error + 0.01);
  }
  SECTION("the GBM leg first: (K - (G - H))+ as a put, a Heston call at strike G_T - K")
  {
    double const g_spot = 130.0;
    double const k = 20.0;
    portfolio book;
    book.trades = {spread_on("G-H put", {"G", "H"}, option_type::put, k, c.t)};
    auto const run = engine(mixed_market(c, g_spot, g_vol), o).price(book);
    // (K - G + H)+ = (H - (G - K))+: a Heston call at strike G - K where that is positive, else
    // the forward of H - (G - K), discounted.
    double const ref = over_gbm_leg(g_spot, g_vol, c.r, c.t, [&](double g) {
      heston_case at = c;
      at.k = g - k;
      if (at.k > 0.0) return heston_call(at);
      return c.s * std::exp(-c.q * c.t) - at.k * std::exp(-c.r * c.t);
    });
    auto const& r = run.results[0];
    INFO(r.id << ": " << r.price << " +- " << r.std_error << ", reference " << ref << " " << r.message);
    REQUIRE(r.status == trade_status::ok);
    CHECK(std::abs(r.price - ref) <= 4.0 * r.std_error + 0.01);
  }
}

TEST_CASE("early exercise on mixed models fails alone, saying why")
{
  heston_case c{100, 100, 1, 0.03, 0.0, 0.04, 1.5, 0.05, 0.5, -0.7};
  auto const m = mixed_market(c, 100, 0.2);
  trade american = spread_on("american", {"H", "G"}, option_type::call, 0, 1);
  american.exercise = exercise_style::american;
  engine_options o;
  o.backend = backend_choice::cpu;
  o.paths = 2000;
  portfolio book;
  book.trades = {american};
  auto const run = engine(m, o).price(book);
  CHECK(run.results[0].status == trade_status::error);
  CHECK_THAT(run.results[0].message,
             Catch::Contains("assets H (heston) and G (gbm): exercise american on mixed models is not supported yet"));
}
