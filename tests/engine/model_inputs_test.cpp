// Local-volatility surfaces and jumps in the market file (issue 34's inputs): what is read, the
// input errors that name the asset, the field and the value, and the per-trade refusal while
// their simulation is not built.
#include "catch.hpp"
#include "mcprice/engine.hpp"
#include "mcprice/input_error.hpp"
#include "mcprice/market_reader.hpp"

#include <string>

using namespace mcprice;

namespace {

std::string error_of(const std::string& assets)
{
  try {
    (void)parse_market(R"({"rate": 0.03, "assets": {)" + assets + "}}", "m.json");
  } catch (const input_error& e) {
    return e.what();
  }
  FAIL("expected an input_error for: " << assets);
  return {};
}

// A surface on strikes 80-120 and expiries 0.5, 1, 2 with vols `rows` (three rows of five).
std::string local_vol_asset(const std::string& rows, const std::string& extra = "")
{
  return R"("L": {"spot": 100, "model": "local_vol", )" + extra +
         R"("vol_surface": {"expiries": [0.5, 1, 2], "strikes": [80, 90, 100, 110, 120], "vols": )" + rows + "}}";
}

std::string const smile = "[[0.28, 0.24, 0.21, 0.2, 0.21], [0.27, 0.24, 0.22, 0.21, 0.21], [0.26, 0.24, 0.225, "
                          "0.215, 0.21]]";

}  // namespace

TEST_CASE("a local_vol asset's surface and a jump asset are read")
{
  auto const m = parse_market(R"({"rate": 0.03, "assets": {)" + local_vol_asset(smile) +
                                  R"(, "J": {"spot": 50, "vol": 0.2, "jumps": {"intensity": 0.5, "mean": -0.1, "vol": 0.15}},
        "B": {"spot": 50, "model": "heston", "heston": {"v0": 0.04, "kappa": 1, "theta": 0.04, "xi": 0.5, "rho": -0.5},
              "jumps": {"intensity": 1, "mean": 0, "vol": 0.1}}}})",
                              "m.json");
  const asset& l = m.assets()[*m.find("L")];
  CHECK(l.model == model_kind::local_vol);
  CHECK(l.surface.expiries == std::vector<double>{0.5, 1, 2});
  CHECK(l.surface.vols[2][1] == 0.24);
  CHECK(!l.jumps);
  const asset& j = m.assets()[*m.find("J")];
  REQUIRE(j.jumps);
  CHECK(j.jumps->intensity == 0.5);
  CHECK(j.jumps->mean == -0.1);
  CHECK(m.assets()[*m.find("B")].jumps->vol == 0.1);
}

TEST_CASE("bad surfaces are input errors naming the asset, the field and the value")
{
  CHECK_THAT(error_of(local_vol_asset("[[0.2, 0.2, 0.2, 0.2, 0.2], [0.2, 0.2, 0.2, 0.2, 0.2]]")),
             Catch::Contains("/assets/L/vol_surface/vols") && Catch::Contains("3 expiries, got 2"));
  CHECK_THAT(error_of(local_vol_asset("[[0.2, 0.2, 0.2, 0.2], [0.2, 0.2, 0.2, 0.2, 0.2], [0.2, 0.2, 0.2, 0.2, 0.2]]")),
             Catch::Contains("/assets/L/vol_surface/vols/0"));
  CHECK_THAT(error_of(local_vol_asset("[[0.2, 0.2, 0, 0.2, 0.2], [0.2, 0.2, 0.2, 0.2, 0.2], [0.2, 0.2, 0.2, 0.2, 0.2]]")),
             Catch::Contains("/assets/L/vol_surface/vols/0/2: value 0 is out of range"));
  CHECK_THAT(error_of(R"("L": {"spot": 100, "model": "local_vol", "vol_surface": {"expiries": [1, 0.5],
             "strikes": [80, 120], "vols": [[0.2, 0.2], [0.2, 0.2]]}})"),
             Catch::Contains("/assets/L/vol_surface/expiries/1: expiry 0.5 must be > 0 and greater"));
  CHECK_THAT(error_of(R"("L": {"spot": 130, "model": "local_vol", "vol_surface": {"expiries": [1],
             "strikes": [80, 120], "vols": [[0.2, 0.2]]}})"),
             Catch::Contains("/assets/L/vol_surface/strikes: strikes [80, 120] do not bracket the spot 130"));
  CHECK_THAT(error_of(R"("L": {"spot": 100, "model": "local_vol"})"),
             Catch::Contains("/assets/L: missing required key 'vol_surface'"));
}

TEST_CASE("surfaces with butterfly or calendar arbitrage name the expiry and strike")
{
  // A spike at 100: the 100 call is worth more than the average of the 90 and 110 calls.
  CHECK_THAT(error_of(local_vol_asset("[[0.2, 0.2, 0.6, 0.2, 0.2], [0.2, 0.2, 0.2, 0.2, 0.2], [0.2, 0.2, 0.2, 0.2, 0.2]]")),
             Catch::Contains("/assets/L/vol_surface/vols/0/2: expiry 0.5, strike 100") &&
                 Catch::Contains("butterfly arbitrage"));
  // The 2-year row's total variance below the 1-year row's.
  CHECK_THAT(error_of(local_vol_asset("[[0.2, 0.2, 0.2, 0.2, 0.2], [0.3, 0.3, 0.3, 0.3, 0.3], [0.2, 0.2, 0.2, 0.2, 0.2]]")),
             Catch::Contains("/assets/L/vol_surface/vols/2/") && Catch::Contains("expiry 2,") &&
                 Catch::Contains("calendar arbitrage"));
  // The same smile, arbitrage-free, reads.
  CHECK_NOTHROW(parse_market(R"({"rate": 0.03, "assets": {)" + local_vol_asset(smile) + "}}", "m.json"));
}

TEST_CASE("bad jumps are input errors naming the asset, the field and the value")
{
  CHECK_THAT(error_of(R"("J": {"spot": 50, "vol": 0.2, "jumps": {"intensity": -1, "mean": 0, "vol": 0.1}})"),
             Catch::Contains("/assets/J/jumps/intensity: value -1 is out of range: must be >= 0"));
  CHECK_THAT(error_of(R"("J": {"spot": 50, "vol": 0.2, "jumps": {"intensity": 1, "mean": 0, "vol": -0.1}})"),
             Catch::Contains("/assets/J/jumps/vol: value -0.1 is out of range"));
  CHECK_THAT(error_of(R"("J": {"spot": 50, "vol": 0.2, "jumps": {"intensity": 1, "mean": 0}})"),
             Catch::Contains("/assets/J/jumps: missing required key 'vol'"));
  CHECK_THAT(error_of(local_vol_asset(smile, R"("jumps": {"intensity": 1, "mean": 0, "vol": 0.1}, )")),
             Catch::Contains("/assets/L/jumps: jumps on a local_vol asset are not supported"));
}

TEST_CASE("vanillas on local_vol, jump and GBM assets all price")
{
  auto const m = parse_market(R"({"rate": 0.03, "assets": {)" + local_vol_asset(smile) +
                                  R"(, "J": {"spot": 50, "vol": 0.2, "jumps": {"intensity": 0.5, "mean": -0.1, "vol": 0.15}},
        "G": {"spot": 50, "vol": 0.2}}})",
                              "m.json");
  portfolio book;
  for (const char* name : {"L", "J", "G"}) {
    trade t;
    t.id = std::string("call-") + name;
    t.product = product_kind::vanilla;
    t.type = option_type::call;
    t.underlyings = {name};
    t.strike = 100.0;
    t.maturity = 1.0;
    book.trades.push_back(t);
  }
  engine_options o;
  o.backend = backend_choice::cpu;
  o.paths = 1000;
  auto const run = engine(m, o).price(book);
  CHECK(run.results[0].status == trade_status::ok);  // Dupire (local_vol_test.cpp)
  CHECK(run.results[1].status == trade_status::ok);  // Merton (jump_pricing_test.cpp)
  CHECK(run.results[2].status == trade_status::ok);
}
