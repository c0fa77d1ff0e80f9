// Worst-of autocallables on local-vol assets (and GBM assets beside them) on the CPU backend:
// on flat surfaces they are the GBM worst-of on the same normals, Greeks included (a trade's
// normals follow its id, not its model); a worst-of whose second asset can
// never be the worst is the single-asset local-vol note on a skewed surface, Greeks included;
// threads keep the bits, Sobol points price it, its redemption probabilities sum to one, in
// float and double (Greeks in both), and what it does not price yet is refused by name. Beside Heston or jump assets:
// mixed_worst_of_test.cpp.
#include "catch.hpp"
#include "mcprice/engine.hpp"
#include "mcprice/market_reader.hpp"
#include "result_bits.hpp"
#include "worst_of_notes.hpp"

#include <cmath>
#include <numeric>
#include <string>
#include <vector>

using namespace mcprice;
using namespace mcprice::testing;

namespace {

// LA, LB: local vol on flat surfaces; GA, GB: GBM at the same vols and curves, correlated as LA
// and LB are; S: local vol on a skewed surface, `far` a GBM asset beside it; K: Heston.
market_data worst_of_market()
{
  return parse_market(R"({
    "discount_curve": {"times": [0.5, 1, 2, 5], "zero_rates": [0.02, 0.025, 0.03, 0.035]},
    "assets": {
      "LA": {"spot": 100, "dividend_yield": 0.01, "model": "local_vol",
             "vol_surface": {"expiries": [0.5, 1, 2, 4], "strikes": [40, 70, 100, 130, 200],
                             "vols": [[0.25, 0.25, 0.25, 0.25, 0.25], [0.25, 0.25, 0.25, 0.25, 0.25],
                                      [0.25, 0.25, 0.25, 0.25, 0.25], [0.25, 0.25, 0.25, 0.25, 0.25]]}},
      "LB": {"spot": 50, "dividend_yield": 0.02, "model": "local_vol",
             "vol_surface": {"expiries": [0.5, 1, 2, 4], "strikes": [20, 35, 50, 65, 100],
                             "vols": [[0.3, 0.3, 0.3, 0.3, 0.3], [0.3, 0.3, 0.3, 0.3, 0.3],
                                      [0.3, 0.3, 0.3, 0.3, 0.3], [0.3, 0.3, 0.3, 0.3, 0.3]]}},
      "GA": {"spot": 100, "dividend_yield": 0.01, "vol": 0.25},
      "GB": {"spot": 50, "dividend_yield": 0.02, "vol": 0.3},
      "S": {"spot": 100, "dividend_yield": 0.01, "model": "local_vol",
            "vol_surface": {"expiries": [0.5, 1, 2, 3], "strikes": [60, 80, 90, 100, 110, 120, 150],
                            "vols": [[0.32, 0.27, 0.24, 0.21, 0.2, 0.21, 0.24], [0.3, 0.27, 0.24, 0.22, 0.21, 0.21, 0.23],
                                     [0.29, 0.26, 0.24, 0.225, 0.215, 0.21, 0.22],
                                     [0.28, 0.255, 0.235, 0.225, 0.215, 0.21, 0.215]]}},
      "far": {"spot": 100, "vol": 0.2},
      "K": {"spot": 100, "model": "heston", "heston": {"v0": 0.04, "kappa": 1.5, "theta": 0.05, "xi": 0.5, "rho": -0.7}}
    },
    "correlation": {"LA,LB": 0.6, "GA,GB": 0.6, "LA,GB": 0.6, "S,far": 0.3}})",
                      "local-vol worst-of");
}

pricing_run price(const engine_options& o, std::vector<trade> trades)
{
  portfolio book;
  book.trades = std::move(trades);
  return engine(worst_of_market(), o).price(book);
}

void check_same_value(const char* what, double a, double a_error, double b, double b_error, double relative)
{
  INFO(what << ": " << a << " +- " << a_error << " vs " << b << " +- " << b_error);
  CHECK(std::abs(a - b) <= 4.0 * std::hypot(a_error, b_error) + relative * std::abs(b) + 1e-6);
}

}  // namespace

// The note on `underlyings` priced alone: the same trade id draws the same normals whatever the
// model, so two models' numbers differ by their arithmetic only.
trade_result alone(const engine_options& o, std::vector<std::string> underlyings)
{
  auto run = price(o, {note_on(std::move(underlyings), "note")});
  require_ok(run.results[0]);
  return run.results[0];
}

TEST_CASE("a worst-of on flat local-vol surfaces prices as the GBM worst-of on the same normals, alone and beside GBM, "
          "in float and double",
          "[structured][local_vol]")
{
  // Flat surfaces make the local vol the implied vol: the log-Euler steps are the GBM steps.
  engine_options o = cpu_options(100000, false);
  o.precision = GENERATE(path_precision::float32, path_precision::float64);
  trade_result const gbm = alone(o, {"GA", "GB"});
  for (auto const& assets : {std::vector<std::string>{"LA", "LB"}, std::vector<std::string>{"LA", "GB"}}) {
    trade_result const r = alone(o, assets);
    INFO(assets[1] << ": " << r.price << " +- " << r.std_error << " vs GBM " << gbm.price);
    CHECK(std::abs(r.price - gbm.price) <= 1e-5 + 0.02 * gbm.std_error);
  }
}

TEST_CASE("a worst-of's Greeks on flat local-vol surfaces are the GBM worst-of's on the same normals",
          "[structured][local_vol][greeks]")
{
  engine_options const o = cpu_options(40000, true);
  trade_result const l = alone(o, {"LA", "LB"});
  trade_result const g = alone(o, {"GA", "GB"});
  REQUIRE(l.greeks);
  REQUIRE(g.greeks);
  // GBM moves each step's vol along its derivative, local vol rebuilds the grid from implied
  // vols +-0.01: the same shift for a flat vol, to rounding.
  check_same_draw_greeks(*l.greeks, *g.greeks);
}

TEST_CASE("a local-vol worst-of whose other asset is never the worst is the single-asset note",
          "[structured][local_vol][greeks]")
{
  // `far`'s initial level is tiny: its performance is always far above S's.
  trade worst = note_on({"S", "far"}, "worst");
  worst.initial_levels = {100.0, 1e-6};
  auto const run = price(cpu_options(60000, true), {note_on({"S"}, "single"), worst});
  for (auto const& r : run.results) require_ok(r);
  auto const& single = run.results[0];
  auto const& w = run.results[1];
  check_same_value("price", w.price, w.std_error, single.price, single.std_error, 1e-4);
  REQUIRE(w.greeks);
  REQUIRE(single.greeks);
  auto const& g = *w.greeks;
  auto const& s = *single.greeks;
  check_same_value("delta", g.deltas[0].value, g.deltas[0].std_error, s.delta.value, s.delta.std_error, 0.02);
  check_same_value("vega", g.vegas[0].value, g.vegas[0].std_error, s.vega.value, s.vega.std_error, 0.03);
  check_same_value("rho", g.rho.value, g.rho.std_error, s.rho.value, s.rho.std_error, 0.03);
  // The far asset moves nothing.
  CHECK(std::abs(g.deltas[1].value) <= 4.0 * g.deltas[1].std_error + 1e-9);
}

TEST_CASE("local-vol worst-ofs keep their bits across threads, price on Sobol points and count their redemptions, "
          "in float and double",
          "[structured][local_vol]")
{
  engine_options o = cpu_options(4000, false);
  o.precision = GENERATE(path_precision::float32, path_precision::float64);
  o.threads = 1;
  std::vector<trade> const book = {note_on({"S", "far"}, "mixed"), note_on({"LA", "LB"}, "local")};
  auto const one = price(o, book);
  o.threads = 3;
  CHECK(same_result_bits(one, price(o, book)));
  for (auto const& r : one.results) {
    require_ok(r);
    REQUIRE(r.redemption);
    auto const& p = r.redemption->probabilities;
    CHECK(std::abs(std::accumulate(p.begin(), p.end(), 0.0) - 1.0) <= 1e-9);
    CHECK(r.redemption->knock_in_probability > 0.0);
  }
  o.rng = rng_kind::sobol;
  o.rqmc_replicates = 8;
  o.paths = 1 << 14;
  auto const sobol = price(o, book);
  for (std::size_t i = 0; i < book.size(); ++i) {
    require_ok(sobol.results[i]);
    check_same_value(book[i].id.c_str(), sobol.results[i].price, sobol.results[i].std_error, one.results[i].price,
                     one.results[i].std_error, 0.0);
  }
}

TEST_CASE(
    "local-vol and Heston worst-ofs in double agree with float, Greeks included, and keep their bits across "
    "threads",
    "[structured][local_vol]")
{
  engine_options o = cpu_options(100000, true);
  std::vector<trade> const book = {note_on({"S", "far"}, "skewed"), note_on({"LA", "LB"}, "flat"),
                                   note_on({"S", "K"}, "with-heston"), note_on({"K", "far"}, "heston")};
  auto const in_float = price(o, book);
  o.precision = path_precision::float64;
  auto const in_double = price(o, book);
  o.threads = 1;
  auto const one_thread = price(o, book);
  o.threads = 0;
  CHECK(same_result_bits(in_double, one_thread));
  CHECK(in_double.summary.without_greeks == 0);
  for (std::size_t i = 0; i < book.size(); ++i) {
    auto const& d = in_double.results[i];
    auto const& f = in_float.results[i];
    require_ok(d);
    CHECK(d.price != f.price);  // other normals, not the float path rounded
    check_same_value(d.id.c_str(), d.price, d.std_error, f.price, f.std_error, 0.0);
    REQUIRE(d.greeks.has_value());
    REQUIRE(f.greeks.has_value());
    REQUIRE(one_thread.results[i].greeks.has_value());
    auto const dg = d.greeks->all();
    auto const fg = f.greeks->all();
    auto const again = one_thread.results[i].greeks->all();
    REQUIRE(dg.size() == fg.size());
    REQUIRE(dg.size() == again.size());
    for (std::size_t g = 0; g < dg.size(); ++g) {
      INFO(d.id << " Greek " << g);
      CHECK(same_bits(dg[g].value, again[g].value));
      // Other normals; a Greek that is exactly zero in both (an asset never the worst) is zero.
      if (fg[g].value != 0.0) CHECK(dg[g].value != fg[g].value);
      // The allowance: float's rounding of the bumped steps and grids, a small share of a Greek.
      check_same_greek("double against float", dg[g], fg[g], 0.005);
    }
  }
  o.greeks = false;
  o.precision = path_precision::float32;
  auto const heston = price(o, {note_on({"S", "K"}, "heston")});
  require_ok(heston.results[0]);  // mixed_worst_of_test.cpp checks its numbers
  o.precision = path_precision::float64;
  auto const mixed = price(o, {note_on({"S", "K"}, "heston")});
  require_ok(mixed.results[0]);
  check_same_value("mixed", mixed.results[0].price, mixed.results[0].std_error, heston.results[0].price,
                   heston.results[0].std_error, 0.0);
}
