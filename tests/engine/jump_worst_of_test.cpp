// Worst-of autocallables with jump assets (Merton on GBM, Bates on Heston) on the CPU backend:
// they take the Heston worst-of walk, which steps each jumping asset's jumps exactly over each
// step. A worst-of whose other asset is never the worst is the single-asset jump note, priced by
// the path families (whose jumps are tested against closed forms in jump_pricing_test.cpp); a
// jump trade keeps its bits beside trades without jumps and across threads; Sobol points agree
// with Philox; and a jump worst-of in double is refused by name. Beside local-vol assets:
// mixed_worst_of_test.cpp.
#include "catch.hpp"
#include "mcprice/engine.hpp"
#include "mcprice/market_reader.hpp"
#include "result_bits.hpp"
#include "worst_of_notes.hpp"

#include <cmath>
#include <string>
#include <vector>

using namespace mcprice;
using namespace mcprice::testing;

namespace {

// MJ: Merton with strong downward jumps; MK: Merton with milder, two-sided ones; BJ: Bates; G and
// far: GBM; HA: Heston without jumps; L: local vol.
market_data jump_worst_of_market()
{
  return parse_market(R"({
    "discount_curve": {"times": [0.5, 1, 2, 5], "zero_rates": [0.02, 0.025, 0.03, 0.035]},
    "assets": {
      "MJ": {"spot": 100, "dividend_yield": 0.01, "vol": 0.2, "jumps": {"intensity": 1.5, "mean": -0.12, "vol": 0.15}},
      "MK": {"spot": 60, "vol": 0.25, "jumps": {"intensity": 3, "mean": 0.02, "vol": 0.08}},
      "BJ": {"spot": 100, "dividend_yield": 0.01, "model": "heston",
             "heston": {"v0": 0.04, "kappa": 1.5, "theta": 0.05, "xi": 0.5, "rho": -0.7},
             "jumps": {"intensity": 0.8, "mean": -0.1, "vol": 0.12}},
      "HA": {"spot": 100, "model": "heston", "heston": {"v0": 0.05, "kappa": 1.0, "theta": 0.05, "xi": 0.3, "rho": -0.3}},
      "G": {"spot": 80, "dividend_yield": 0.02, "vol": 0.3},
      "far": {"spot": 100, "vol": 0.2},
      "L": {"spot": 100, "model": "local_vol",
            "vol_surface": {"expiries": [0.5, 1, 2, 4], "strikes": [50, 100, 200],
                            "vols": [[0.25, 0.25, 0.25], [0.25, 0.25, 0.25], [0.25, 0.25, 0.25], [0.25, 0.25, 0.25]]}}
    },
    "correlation": {"MJ,G": 0.5, "MJ,MK": 0.3, "BJ,G": 0.4, "MJ,far": 0.3}})",
                      "jump worst-of");
}

// The note with its knock-in watched at the observations, so that every grid steps exactly
// between them.
trade observed_note(std::vector<std::string> underlyings, const std::string& id)
{
  return testing::note_on(std::move(underlyings), id, knock_in_monitoring::discrete);
}

// A worst-of whose asset `never` starts from a tiny initial level: its performance is always far
// above the others', so it is never the worst (its jumps are drawn all the same).
trade beside(std::vector<std::string> underlyings, const std::string& never, const std::string& id)
{
  trade t = observed_note(underlyings, id);
  for (auto const& name : underlyings) t.initial_levels.push_back(name == never ? 1e-6 : 100.0);
  return t;
}

pricing_run price(const engine_options& o, std::vector<trade> trades)
{
  portfolio book;
  book.trades = std::move(trades);
  return engine(jump_worst_of_market(), o).price(book);
}

}  // namespace

TEST_CASE("a worst-of with jumps whose other assets are never the worst is the single-asset jump note",
          "[structured][jumps]")
{
  // Merton beside GBM; beside a second jump asset, first and second in the list (each asset's
  // draws and mean counts are its own); Bates beside GBM, against the Heston path family's note
  // on the same QE grid.
  auto const run = price(cpu_options(200000), {observed_note({"MJ"}, "MJ alone"), beside({"MJ", "far"}, "far", "MJ, far"),
                                              beside({"MJ", "MK"}, "MK", "MJ, MK"),
                                              beside({"MK", "MJ"}, "MK", "MK first, MJ"), observed_note({"BJ"}, "BJ alone"),
                                              beside({"BJ", "G"}, "G", "BJ, G")});
  for (auto const& r : run.results) require_ok(r);
  check_same_value(run.results[1], run.results[0], 0.0);
  check_same_value(run.results[2], run.results[0], 0.0);
  check_same_value(run.results[3], run.results[0], 0.0);
  check_same_value(run.results[5], run.results[4], 0.0);
  // The jumps matter: the note on MJ without its jumps' downside is worth more.
  auto const no_jumps = price(cpu_options(80000), {observed_note({"far"}, "far alone")});
  require_ok(no_jumps.results[0]);
  CHECK(run.results[0].price < no_jumps.results[0].price - 4.0 * std::hypot(run.results[0].std_error,
                                                                            no_jumps.results[0].std_error));
}

TEST_CASE("a jump worst-of keeps its bits beside worst-ofs without jumps and across threads", "[structured][jumps]")
{
  engine_options o = cpu_options(20000);
  o.threads = 1;
  auto const alone = price(o, {observed_note({"MJ", "G"}, "jumps")});
  o.threads = 4;
  auto const among = price(o, {observed_note({"HA", "G"}, "no jumps"), observed_note({"MJ", "G"}, "jumps"),
                               observed_note({"BJ", "HA"}, "bates")});
  for (auto const& r : among.results) require_ok(r);
  CHECK(same_bits(among.results[1].price, alone.results[0].price));
  CHECK(same_bits(among.results[1].std_error, alone.results[0].std_error));
  CHECK(same_redemption_bits(among.results[1], alone.results[0]));
  // The worst of two is worth less than the note on its jump asset alone.
  auto const single = price(cpu_options(20000), {observed_note({"MJ"}, "MJ alone")});
  CHECK(alone.results[0].price < single.results[0].price);
}

TEST_CASE("jump worst-ofs on Sobol points agree with Philox", "[structured][jumps]")
{
  engine_options o = cpu_options(40000);
  auto const philox = price(o, {observed_note({"MJ", "G"}, "merton"), observed_note({"BJ", "G"}, "bates")});
  o.rng = rng_kind::sobol;
  o.rqmc_replicates = 8;
  auto const sobol = price(o, {observed_note({"MJ", "G"}, "merton"), observed_note({"BJ", "G"}, "bates")});
  for (std::size_t i = 0; i < 2; ++i) {
    require_ok(philox.results[i]);
    require_ok(sobol.results[i]);
    check_same_value(sobol.results[i], philox.results[i], 0.0);
  }
  // Two normals an asset a step: Sobol points take two underlyings, as for Heston worst-ofs.
  auto const three = price(o, {observed_note({"MJ", "G", "MK"}, "three")});
  CHECK(three.results[0].status == trade_status::error);
  CHECK_THAT(three.results[0].message, Catch::Contains("Heston or jump assets of at most 2 underlyings"));
}

TEST_CASE("a jump worst-of in double agrees with float, beside the rest of the book", "[structured][jumps]")
{
  engine_options o = cpu_options(100000);
  std::vector<trade> const book = {observed_note({"L", "MJ"}, "mixed"), observed_note({"G", "far"}, "fine")};
  auto const in_float = price(o, book);
  o.precision = path_precision::float64;
  auto const run = price(o, book);
  for (std::size_t i = 0; i < book.size(); ++i) {
    require_ok(run.results[i]);
    auto const& d = run.results[i];
    auto const& f = in_float.results[i];
    INFO(d.id << ": double " << d.price << " +- " << d.std_error << ", float " << f.price << " +- " << f.std_error);
    CHECK(d.price != f.price);  // other normals, not the float path rounded
    CHECK(std::abs(d.price - f.price) <= 4.0 * std::hypot(d.std_error, f.std_error));
  }
}
