// Greeks of worst-of autocallables on Heston and jump assets (the Heston worst-of walk's scenario
// differences) on the CPU backend: without vol of vol they are the GBM worst-of's Greeks; with a
// second asset that is never the worst they are the single-asset note's (Heston, Merton, Bates:
// the path families' scenario lanes, tested against closed forms elsewhere); delta, vega and
// correlation vega are the differences of the note repriced on moved markets, on the same draws;
// the price keeps its bits with Greeks on, and across threads.
#include "catch.hpp"
#include "mcprice/engine.hpp"
#include "mcprice/market_reader.hpp"
#include "result_bits.hpp"
#include "worst_of_notes.hpp"

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

using namespace mcprice;
using namespace mcprice::testing;

namespace {

// HA: Heston with a strong skew; FA, FB: Heston without vol of vol whose variance sits at its
// mean (v0 = theta), GA, GB: GBM at those vols, correlated as FA and FB; MJ: Merton; BJ: Bates;
// far: GBM.
market_data greeks_market()
{
  return parse_market(R"({
    "discount_curve": {"times": [0.5, 1, 2, 5], "zero_rates": [0.02, 0.025, 0.03, 0.035]},
    "assets": {
      "HA": {"spot": 100, "dividend_yield": 0.01, "model": "heston",
             "heston": {"v0": 0.04, "kappa": 1.5, "theta": 0.05, "xi": 0.6, "rho": -0.7}},
      "FA": {"spot": 100, "dividend_yield": 0.01, "model": "heston",
             "heston": {"v0": 0.0625, "kappa": 1.5, "theta": 0.0625, "xi": 0, "rho": -0.7}},
      "FB": {"spot": 50, "dividend_yield": 0.02, "model": "heston",
             "heston": {"v0": 0.09, "kappa": 2.0, "theta": 0.09, "xi": 0, "rho": -0.5}},
      "GA": {"spot": 100, "dividend_yield": 0.01, "vol": 0.25},
      "GB": {"spot": 50, "dividend_yield": 0.02, "vol": 0.3},
      "MJ": {"spot": 100, "dividend_yield": 0.01, "vol": 0.2, "jumps": {"intensity": 1.5, "mean": -0.12, "vol": 0.15}},
      "BJ": {"spot": 100, "dividend_yield": 0.01, "model": "heston",
             "heston": {"v0": 0.04, "kappa": 1.5, "theta": 0.05, "xi": 0.5, "rho": -0.7},
             "jumps": {"intensity": 0.8, "mean": -0.1, "vol": 0.12}},
      "far": {"spot": 100, "vol": 0.2}
    },
    "correlation": {"FA,FB": 0.6, "GA,GB": 0.6, "HA,far": 0.3, "MJ,far": 0.3}})",
                      "Heston worst-of Greeks");
}

pricing_run price(const engine_options& o, std::vector<trade> trades)
{
  portfolio book;
  book.trades = std::move(trades);
  return engine(greeks_market(), o).price(book);
}

// What moved_market moves: HA's spot and Heston vol level (sqrt(v0), sqrt(theta)), and the
// correlation of HA and the Merton asset MJ.
struct market_move {
  double spot{100.0};
  double vol_level{0.0};
  double correlation{0.4};
};

market_data moved_market(const market_move& m)
{
  auto const level = [&](double v) { return (std::sqrt(v) + m.vol_level) * (std::sqrt(v) + m.vol_level); };
  std::ostringstream json;
  json.precision(17);
  json << R"({"rate": 0.03, "assets": {"HA": {"spot": )" << m.spot
       << R"(, "dividend_yield": 0.01, "model": "heston", "heston": {"v0": )" << level(0.04)
       << R"(, "kappa": 1.5, "theta": )" << level(0.05) << R"(, "xi": 0.6, "rho": -0.7}},
      "MJ": {"spot": 100, "vol": 0.2, "jumps": {"intensity": 1.5, "mean": -0.12, "vol": 0.15}}},
    "correlation": {"HA,MJ": )"
       << m.correlation << "}}";
  return parse_market(json.str(), "moved market");
}

// The note on `asset` beside `far`, whose tiny initial level keeps it from ever being the worst.
trade beside_far(const std::string& asset, const std::string& id)
{
  trade t = note_on({asset, "far"}, id);
  t.initial_levels = {100.0, 1e-6};
  return t;
}

}  // namespace

TEST_CASE("a Heston worst-of's Greeks without vol of vol are the GBM worst-of's", "[structured][heston][greeks]")
{
  // Knock-in at the observations: both step exactly between them. The vol level +-0.01 of a
  // variance held at its mean is the GBM vol +-0.01.
  auto const run = price(cpu_options(40000, true), {note_on({"FA", "FB"}, "heston", knock_in_monitoring::discrete),
                                                    note_on({"GA", "GB"}, "gbm", knock_in_monitoring::discrete)});
  for (auto const& r : run.results) require_ok(r);
  REQUIRE(run.results[0].greeks);
  REQUIRE(run.results[1].greeks);
  auto const& h = *run.results[0].greeks;
  auto const& g = *run.results[1].greeks;
  REQUIRE(h.deltas.size() == 2);
  CHECK(h.method == g.method);
  for (std::size_t i = 0; i < 2; ++i) {
    INFO("asset " << i);
    check_same_greek("delta", h.deltas[i], g.deltas[i], 0.01);
    check_same_greek("gamma", h.gammas[i], g.gammas[i], 0.02);
    check_same_greek("vega", h.vegas[i], g.vegas[i], 0.01);
  }
  check_same_greek("cross gamma", h.cross_gammas[0], g.cross_gammas[0], 0.02);
  check_same_greek("correlation vega", h.correlation_vega, g.correlation_vega, 0.01);
  check_same_greek("rho", h.rho, g.rho, 0.01);
  check_same_greek("theta", h.theta, g.theta, 0.01);
}

TEST_CASE("Heston and jump worst-ofs whose other asset is never the worst have the single-asset notes' Greeks",
          "[structured][heston][jumps][greeks]")
{
  for (std::string const asset : {"HA", "MJ", "BJ"}) {
    INFO(asset);
    auto const run = price(cpu_options(60000, true), {note_on({asset}, "single"), beside_far(asset, "worst")});
    for (auto const& r : run.results) require_ok(r);
    auto const& single = run.results[0];
    auto const& w = run.results[1];
    check_single_note_greeks(w, single);
    check_same_greek("gamma", w.greeks->gammas[0], single.greeks->gamma, 0.05);
  }
}

TEST_CASE("Heston and jump worst-ofs price with the same bits with Greeks on, and across threads",
          "[structured][heston][jumps][greeks]")
{
  engine_options o = cpu_options(4000, true);
  o.threads = 1;
  std::vector<trade> const book = {note_on({"HA", "far"}, "heston"), note_on({"MJ", "BJ", "far"}, "jumps"),
                                   note_on({"FA", "FB"}, "flat")};
  auto const one = price(o, book);
  o.threads = 3;
  CHECK(same_result_bits(one, price(o, book)));
  o.greeks = false;
  auto const plain = price(o, book);
  for (std::size_t i = 0; i < book.size(); ++i) {
    require_ok(one.results[i]);
    REQUIRE(one.results[i].greeks);
    CHECK(!plain.results[i].greeks);
    CHECK(one.results[i].price == plain.results[i].price);
    CHECK(one.results[i].std_error == plain.results[i].std_error);
  }
}

TEST_CASE("a Heston-and-Merton worst-of's delta, vega and correlation vega are its moved markets' differences",
          "[structured][heston][jumps][greeks]")
{
  // The note is seasoned at 100 on both assets, so a moved spot moves HA's performance alone.
  // The draws follow the trade's id, not the market: the repriced notes walk the same paths as
  // the scenarios, and the differences agree to float rounding (a path within it of a barrier
  // may cross), far inside the standard errors.
  trade t = note_on({"HA", "MJ"}, "seasoned");
  t.initial_levels = {100.0, 100.0};
  engine_options o = cpu_options(20000, true);
  auto const at = [&](const market_move& m) {
    portfolio book;
    book.trades = {t};
    engine_options plain = o;
    plain.greeks = false;
    auto const run = engine(moved_market(m), plain).price(book);
    require_ok(run.results[0]);
    return run.results[0].price;
  };
  portfolio book;
  book.trades = {t};
  auto const run = engine(moved_market({}), o).price(book);
  require_ok(run.results[0]);
  REQUIRE(run.results[0].greeks);
  auto const& g = *run.results[0].greeks;
  auto const check_difference = [](const char* what, const greek_estimate& e, double difference) {
    INFO(what << ": " << e.value << " +- " << e.std_error << " vs repriced " << difference);
    CHECK(std::abs(e.value - difference) <= 0.05 * e.std_error + 1e-4 * std::abs(difference));
  };
  check_difference("delta", g.deltas[0], (at({101.0, 0.0, 0.4}) - at({99.0, 0.0, 0.4})) / 2.0);
  check_difference("vega", g.vegas[0], (at({100.0, 0.01, 0.4}) - at({100.0, -0.01, 0.4})) / 0.02);
  check_difference("correlation vega", g.correlation_vega, (at({100.0, 0.0, 0.41}) - at({100.0, 0.0, 0.39})) / 0.02);
}
