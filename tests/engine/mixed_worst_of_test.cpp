// Worst-of autocallables mixing local-vol assets with Heston or jump ones (the Heston worst-of
// walk, each local-vol asset on its own grid) on the CPU backend: a local-vol asset on a flat
// surface is the GBM asset at that vol on the same draws, price and Greeks; beside a Heston asset
// that is never the worst, a local-vol asset on a skewed surface is the single-asset local-vol
// note; threads keep the bits and Sobol points agree with Philox.
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

// LF: local vol on a flat surface, G: GBM at its vol and curves, correlated with HA and MJ as LF
// is; S: local vol on a skewed surface; HA: Heston; MJ: Merton.
market_data mixed_market()
{
  return parse_market(R"({
    "discount_curve": {"times": [0.5, 1, 2, 5], "zero_rates": [0.02, 0.025, 0.03, 0.035]},
    "assets": {
      "LF": {"spot": 50, "dividend_yield": 0.02, "model": "local_vol",
             "vol_surface": {"expiries": [0.5, 1, 2, 4], "strikes": [20, 35, 50, 65, 100],
                             "vols": [[0.3, 0.3, 0.3, 0.3, 0.3], [0.3, 0.3, 0.3, 0.3, 0.3],
                                      [0.3, 0.3, 0.3, 0.3, 0.3], [0.3, 0.3, 0.3, 0.3, 0.3]]}},
      "G": {"spot": 50, "dividend_yield": 0.02, "vol": 0.3},
      "S": {"spot": 100, "dividend_yield": 0.01, "model": "local_vol",
            "vol_surface": {"expiries": [0.5, 1, 2, 3], "strikes": [60, 80, 90, 100, 110, 120, 150],
                            "vols": [[0.32, 0.27, 0.24, 0.21, 0.2, 0.21, 0.24], [0.3, 0.27, 0.24, 0.22, 0.21, 0.21, 0.23],
                                     [0.29, 0.26, 0.24, 0.225, 0.215, 0.21, 0.22],
                                     [0.28, 0.255, 0.235, 0.225, 0.215, 0.21, 0.215]]}},
      "HA": {"spot": 100, "dividend_yield": 0.01, "model": "heston",
             "heston": {"v0": 0.04, "kappa": 1.5, "theta": 0.05, "xi": 0.6, "rho": -0.7}},
      "MJ": {"spot": 100, "dividend_yield": 0.01, "vol": 0.2, "jumps": {"intensity": 1.5, "mean": -0.12, "vol": 0.15}}
    },
    "correlation": {"HA,LF": 0.5, "HA,G": 0.5, "MJ,LF": 0.4, "MJ,G": 0.4, "S,HA": 0.3}})",
                      "mixed worst-of");
}

pricing_run price(const engine_options& o, std::vector<trade> trades)
{
  portfolio book;
  book.trades = std::move(trades);
  return engine(mixed_market(), o).price(book);
}

// The note on `underlyings` alone: its draws follow its id, whatever its assets' models.
trade_result alone(const engine_options& o, std::vector<std::string> underlyings)
{
  auto run = price(o, {note_on(std::move(underlyings), "note")});
  require_ok(run.results[0]);
  return run.results[0];
}

}  // namespace

TEST_CASE("a local-vol asset on a flat surface beside Heston or jump assets is the GBM asset, Greeks included",
          "[structured][local_vol][heston][jumps][greeks]")
{
  // Flat surfaces make the local vol the implied vol: the log-Euler steps are the GBM steps, on
  // the same draws (the Heston walk draws two normals an asset a step, whatever the model).
  engine_options const o = cpu_options(40000, true);
  for (std::string const other : {"HA", "MJ"}) {
    INFO(other);
    trade_result const l = alone(o, {other, "LF"});
    trade_result const g = alone(o, {other, "G"});
    INFO(l.price << " +- " << l.std_error << " vs GBM " << g.price);
    CHECK(std::abs(l.price - g.price) <= 1e-5 + 0.02 * g.std_error);
    REQUIRE(l.greeks);
    REQUIRE(g.greeks);
    check_same_draw_greeks(*l.greeks, *g.greeks);
  }
}

TEST_CASE("a local-vol asset beside a Heston asset that is never the worst is the single-asset local-vol note",
          "[structured][local_vol][heston][greeks]")
{
  trade worst = note_on({"S", "HA"}, "worst");
  worst.initial_levels = {100.0, 1e-6};
  auto const run = price(cpu_options(60000, true), {note_on({"S"}, "single"), worst});
  for (auto const& r : run.results) require_ok(r);
  auto const& single = run.results[0];
  auto const& w = run.results[1];
  check_single_note_greeks(w, single);
}

TEST_CASE("mixed worst-ofs keep their bits across threads, beside other trades, and price on Sobol points",
          "[structured][local_vol][heston][jumps]")
{
  engine_options o = cpu_options(4000);
  o.threads = 1;
  std::vector<trade> const book = {note_on({"HA", "S"}, "heston"), note_on({"S", "MJ"}, "jumps")};
  auto const one = price(o, book);
  o.threads = 3;
  CHECK(same_result_bits(one, price(o, book)));
  // Beside a local-vol worst-of on GBM (another family) and a GBM-only one: the same bits.
  std::vector<trade> wider = {note_on({"S", "G"}, "local-vol")};
  wider.insert(wider.end(), book.begin(), book.end());
  wider.push_back(note_on({"G", "S", "HA", "MJ"}, "four"));
  auto const beside = price(o, wider);
  for (std::size_t i = 0; i < book.size(); ++i) {
    require_ok(one.results[i]);
    CHECK(beside.results[i + 1].price == one.results[i].price);
    REQUIRE(one.results[i].redemption);
    auto const& p = one.results[i].redemption->probabilities;
    CHECK(std::abs(std::accumulate(p.begin(), p.end(), 0.0) - 1.0) <= 1e-9);
  }
  require_ok(beside.results.back());
  o.rng = rng_kind::sobol;
  o.rqmc_replicates = 8;
  o.paths = 1 << 14;
  auto const sobol = price(o, book);
  for (std::size_t i = 0; i < book.size(); ++i) {
    require_ok(sobol.results[i]);
    check_same_value(sobol.results[i], one.results[i], 0.0);
  }
}
