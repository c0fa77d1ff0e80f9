// Worst-of autocallables on Heston assets (and GBM assets beside them) on the CPU backend: without
// vol of vol they are the GBM worst-of; a worst-of whose other asset is never the worst is the
// single-asset Heston note (the same QE steps on the same grid); a higher knock-in never raises
// the price on the same paths; threads keep the bits, Sobol points price two assets, the
// redemption probabilities sum to one, and what it does not price is refused by name. Their
// Greeks: heston_worst_of_greeks_test.cpp.
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

// HA, HB: Heston with a strong skew, correlated 0.5; FA, FB: Heston without vol of vol whose
// variance sits at its mean (v0 = theta), and GA, GB: GBM at those vols, correlated as FA and FB;
// `far` a GBM asset; L: local vol.
market_data heston_worst_of_market()
{
  return parse_market(R"({
    "discount_curve": {"times": [0.5, 1, 2, 5], "zero_rates": [0.02, 0.025, 0.03, 0.035]},
    "assets": {
      "HA": {"spot": 100, "dividend_yield": 0.01, "model": "heston",
             "heston": {"v0": 0.04, "kappa": 1.5, "theta": 0.05, "xi": 0.6, "rho": -0.7}},
      "HB": {"spot": 50, "dividend_yield": 0.02, "model": "heston",
             "heston": {"v0": 0.09, "kappa": 2.0, "theta": 0.06, "xi": 0.4, "rho": -0.5}},
      "HC": {"spot": 80, "model": "heston", "heston": {"v0": 0.05, "kappa": 1.0, "theta": 0.05, "xi": 0.3, "rho": -0.3}},
      "FA": {"spot": 100, "dividend_yield": 0.01, "model": "heston",
             "heston": {"v0": 0.0625, "kappa": 1.5, "theta": 0.0625, "xi": 0, "rho": -0.7}},
      "FB": {"spot": 50, "dividend_yield": 0.02, "model": "heston",
             "heston": {"v0": 0.09, "kappa": 2.0, "theta": 0.09, "xi": 0, "rho": -0.5}},
      "GA": {"spot": 100, "dividend_yield": 0.01, "vol": 0.25},
      "GB": {"spot": 50, "dividend_yield": 0.02, "vol": 0.3},
      "far": {"spot": 100, "vol": 0.2},
      "L": {"spot": 100, "model": "local_vol",
            "vol_surface": {"expiries": [0.5, 1, 2, 4], "strikes": [50, 100, 200],
                            "vols": [[0.25, 0.25, 0.25], [0.25, 0.25, 0.25], [0.25, 0.25, 0.25], [0.25, 0.25, 0.25]]}}
    },
    "correlation": {"HA,HB": 0.5, "HA,HC": 0.4, "HB,HC": 0.3, "FA,FB": 0.6, "GA,GB": 0.6, "HA,far": 0.3}})",
                      "Heston worst-of");
}

pricing_run price(const engine_options& o, std::vector<trade> trades)
{
  portfolio book;
  book.trades = std::move(trades);
  return engine(heston_worst_of_market(), o).price(book);
}

}  // namespace

TEST_CASE("a worst-of on Heston assets without vol of vol prices as the GBM worst-of", "[structured][heston]")
{
  // Knock-in at the observations: both step exactly between them, whatever their grids.
  auto const run = price(cpu_options(60000), {note_on({"FA", "FB"}, "heston", knock_in_monitoring::discrete),
                                              note_on({"GA", "GB"}, "gbm", knock_in_monitoring::discrete)});
  for (auto const& r : run.results) require_ok(r);
  check_same_value(run.results[0], run.results[1], 0.0);
}

TEST_CASE("a Heston worst-of whose other asset is never the worst is the single-asset Heston note",
          "[structured][heston]")
{
  // The second asset's initial level is tiny: its performance is always far above HA's. Both
  // notes take the same QE steps on the same grid, the knock-in's bridge on HA's integrated
  // variance; only their normals differ.
  trade beside_gbm = note_on({"HA", "far"}, "beside-gbm");
  beside_gbm.initial_levels = {100.0, 1e-6};
  trade beside_heston = note_on({"HA", "HB"}, "beside-heston");
  beside_heston.initial_levels = {100.0, 1e-6};
  auto const run = price(cpu_options(60000), {note_on({"HA"}, "single"), beside_gbm, beside_heston});
  for (auto const& r : run.results) require_ok(r);
  check_same_value(run.results[1], run.results[0], 0.0);
  check_same_value(run.results[2], run.results[0], 0.0);
  // The worst of two is worth less than the note on either.
  auto const two = price(cpu_options(60000), {note_on({"HA", "HB"}, "two"), note_on({"HB"}, "HB alone")});
  for (auto const& r : two.results) require_ok(r);
  CHECK(two.results[0].price < run.results[0].price - 4.0 * std::hypot(two.results[0].std_error, run.results[0].std_error));
  CHECK(two.results[0].price < two.results[1].price - 4.0 * std::hypot(two.results[0].std_error, two.results[1].std_error));
}

TEST_CASE("on the same Heston paths a higher knock-in never raises a worst-of's price", "[structured][heston]")
{
  engine_options const o = cpu_options(8000);
  double previous = 0.0;
  for (double const ki : {0.5, 0.6, 0.7, 0.8}) {
    auto const run = price(o, {note_on({"HA", "HB", "HC"}, "note", knock_in_monitoring::continuous, ki)});
    require_ok(run.results[0]);
    INFO("knock-in " << ki);
    if (ki > 0.5) CHECK(run.results[0].price <= previous);
    previous = run.results[0].price;
  }
}

TEST_CASE("Heston worst-ofs keep their bits across threads, price on Sobol points and count their redemptions",
          "[structured][heston]")
{
  engine_options o = cpu_options(4000);
  o.threads = 1;
  std::vector<trade> const book = {note_on({"HA", "far"}, "mixed"), note_on({"HA", "HB"}, "heston")};
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
    check_same_value(sobol.results[i], one.results[i], 0.0);
  }
  // Two normals an asset a step: Sobol points hold two assets.
  auto const three = price(o, {note_on({"HA", "HB", "HC"}, "three")});
  CHECK(three.results[0].status == trade_status::error);
  CHECK(three.results[0].message.find("--rng sobol") != std::string::npos);
}

TEST_CASE("Heston worst-ofs in double agree with float and keep their bits across threads", "[structured][heston]")
{
  engine_options o = cpu_options(100000);
  std::vector<trade> const book = {note_on({"HA", "far"}, "heston-gbm"), note_on({"HA", "HB"}, "heston-heston")};
  auto const in_float = price(o, book);
  o.precision = path_precision::float64;
  auto const in_double = price(o, book);
  for (std::size_t i = 0; i < book.size(); ++i) {
    require_ok(in_double.results[i]);
    CHECK(in_double.results[i].price != in_float.results[i].price);  // other normals
    check_same_value(in_double.results[i], in_float.results[i], 0.0);
  }
  o.paths = 3000;
  o.threads = 1;
  auto const one = price(o, book);
  o.threads = 3;
  CHECK(same_result_bits(one, price(o, book)));
}
