#include "mcprice/results_writer.hpp"
#include "catch.hpp"

#include <nlohmann/json.hpp>

#include <sstream>

using namespace mcprice;

namespace {
pricing_run sample_run()
{
  pricing_run run;
  trade_result ok;
  ok.id = "T1";
  ok.status = trade_status::ok;
  ok.price = 10.450583572185565;
  ok.std_error = 0.1;
  ok.ci_low = 0.1 + 0.2;
  ok.ci_high = 1e-300;
  ok.paths = 1000;
  trade_result bad;
  bad.id = "T,2";
  bad.message = "trade T,2: strike \"x\" is bad";
  run.results = {ok, bad};
  run.summary.trades = 2;
  run.summary.failed = 1;
  return run;
}
}  // namespace

TEST_CASE("CSV results: contract columns, round-trip numbers, quoted text")
{
  std::ostringstream out;
  write_results_csv(out, sample_run());
  CHECK(out.str() ==
        "id,status,price,std_error,ci_low,ci_high,paths,message\n"
        "T1,ok,10.450583572185565,0.1,0.30000000000000004,1e-300,1000,\n"
        "\"T,2\",error,,,,,,\"trade T,2: strike \"\"x\"\" is bad\"\n");
}

TEST_CASE("JSON results carry the same fields and read back to the same doubles")
{
  std::ostringstream out;
  write_results_json(out, sample_run());
  auto const doc = nlohmann::json::parse(out.str());
  REQUIRE(doc["results"].size() == 2);
  CHECK(doc["results"][0]["price"].get<double>() == 10.450583572185565);
  CHECK(doc["results"][0]["ci_low"].get<double>() == 0.1 + 0.2);
  CHECK(doc["results"][1]["status"] == "error");
  CHECK(doc["results"][1]["price"].is_null());
  CHECK(doc["summary"]["failed"] == 1);
}
