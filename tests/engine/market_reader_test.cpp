#include "mcprice/market_reader.hpp"
#include "catch.hpp"
#include "mcprice/input_error.hpp"

#include <cmath>

using namespace mcprice;

namespace {
input_error market_error(const std::string& text)
{
  try {
    (void)parse_market(text, "m.json");
  } catch (const input_error& e) {
    return e;
  }
  FAIL("expected an input_error for: " << text);
  throw;
}
}  // namespace

TEST_CASE("the contract's example market reads completely")
{
  auto const m = read_market_file(std::string(MCPRICE_DATA_DIR) + "/sample_market.json");
  REQUIRE(m.assets().size() == 3);
  CHECK(std::abs(m.discount().zero_rate(0.75) - 0.041) < 1e-15);
  auto const abc = *m.find("ABC");
  auto const def = *m.find("DEF");
  auto const ghi = *m.find("GHI");
  CHECK(m.assets()[abc].spot == 100.0);
  CHECK(m.assets()[abc].dividend.zero_rate(3.0) == 0.02);
  CHECK(std::abs(m.assets()[def].vol.vol(0.5) - 0.25) < 1e-15);
  CHECK(m.assets()[def].dividend.zero_rate(2.0) == 0.0125);
  CHECK(m.assets()[ghi].model == model_kind::heston);
  CHECK(m.assets()[ghi].heston.rho == -0.7);
  CHECK(m.correlation(abc, def) == 0.6);
  CHECK(m.correlation(def, abc) == 0.6);
  CHECK(m.correlation(def, ghi) == 0.0);
  CHECK(m.correlation(ghi, ghi) == 1.0);
}

TEST_CASE("the matrix form of correlation is accepted")
{
  auto const m = parse_market(R"({"rate": 0.01, "assets": {"A": {"spot": 1, "vol": 0.1}, "B": {"spot": 2, "vol": 0.2}},
      "correlation": {"names": ["B", "A"], "matrix": [[1, -0.3], [-0.3, 1]]}})",
                              "m.json");
  CHECK(m.correlation(*m.find("A"), *m.find("B")) == -0.3);
}

TEST_CASE("invalid JSON is reported at its line and column")
{
  auto const e = market_error("{\n  \"rate\": 0.05,\n  \"assets\": {\"A\": {\"spot\": 1,, }}\n}");
  CHECK(e.where().line == 3);
  CHECK(e.where().column >= 28);
  CHECK(std::string(e.what()).find("invalid JSON") != std::string::npos);
}

TEST_CASE("wrong types and ranges name the value's pointer and position")
{
  auto e = market_error("{\"rate\": 0.05,\n \"assets\": {\"A\": {\"spot\": \"100\", \"vol\": 0.2}}}");
  CHECK(e.where().line == 2);
  CHECK(std::string(e.what()).find("/assets/A/spot: expected a number, got string") != std::string::npos);
  e = market_error(R"({"rate": 0.05, "assets": {"A": {"spot": 100, "vol": -0.2}}})");
  CHECK(std::string(e.what()).find("/assets/A/vol: value -0.2 is out of range") != std::string::npos);
  e = market_error(R"({"rate": 0.05, "assets": {"A": {"spot": 100, "vol": 0.2, "divdend_yield": 0.01}}})");
  CHECK(std::string(e.what()).find("unknown key 'divdend_yield'") != std::string::npos);
  e = market_error(R"({"assets": {}})");
  CHECK(std::string(e.what()).find("missing the discount curve") != std::string::npos);
  e = market_error(R"({"rate": 0.05, "assets": {"A": {"spot": 100, "vol": {"times": [1, 0.5], "vols": [0.2, 0.2]}}}})");
  CHECK(std::string(e.what()).find("/assets/A/vol/times/1") != std::string::npos);
  e = market_error(R"({"rate": 0.05, "assets": {"A": {"spot": 100, "vol": {"times": [1, 2], "vols": [0.3, 0.1]}}}})");
  CHECK(std::string(e.what()).find("calendar arbitrage") != std::string::npos);
}

TEST_CASE("correlations: unknown names, bad values and matrices that are not PSD")
{
  std::string const assets =
      R"("assets": {"A": {"spot": 1, "vol": 0.1}, "B": {"spot": 1, "vol": 0.1}, "C": {"spot": 1, "vol": 0.1}})";
  auto e = market_error("{\"rate\": 0, " + assets + R"(, "correlation": {"A,Z": 0.5}})");
  CHECK(std::string(e.what()).find("'Z' is not an asset") != std::string::npos);
  e = market_error("{\"rate\": 0, " + assets + R"(, "correlation": {"A,B": 1.5}})");
  CHECK(std::string(e.what()).find("out of range") != std::string::npos);
  e = market_error("{\"rate\": 0, " + assets + R"(, "correlation": {"A,B": 0.9, "B,C": 0.9, "A,C": -0.9}})");
  CHECK(std::string(e.what()).find("not positive semi-definite") != std::string::npos);
  e = market_error("{\"rate\": 0, " + assets +
                   R"(, "correlation": {"names": ["A", "B"], "matrix": [[1, 0.2], [0.3, 1]]}})");
  CHECK(std::string(e.what()).find("not symmetric") != std::string::npos);
}
