#include "run_wire.hpp"
#include "catch.hpp"
#include "mcprice/input_error.hpp"

#include <cmath>
#include <cstring>
#include <limits>

using namespace mcprice;

TEST_CASE("a rank's run crosses the wire to the last bit")
{
  pricing_run run;
  trade_result a;
  a.id = "A";
  a.status = trade_status::ok;
  a.price = 0.1 + 0.2;  // not a short decimal
  a.std_error = -0.0;
  a.ci_low = std::numeric_limits<double>::denorm_min();
  a.ci_high = std::numeric_limits<double>::infinity();
  a.paths = 1'000'000'007;
  trade_greeks g;
  g.delta = {0.5, 1e-300};
  g.method = greek_method::central_bumps;
  g.deltas = {{1.0, 2.0}, {3.0, std::nextafter(4.0, 5.0)}};
  g.cross_gammas = {{-7.25, 0.125}};
  a.greeks = g;
  trade_result b;
  b.id = "B, with \"quotes\"";
  b.status = trade_status::error;
  b.price = std::numeric_limits<double>::quiet_NaN();
  b.message = "book.csv:3:9: strike 'x' is not a finite number";
  run.results = {a, b};
  run.summary.trades = 2;
  run.summary.failed = 1;
  run.summary.paths = 123;
  run.summary.device_name = "CPU, 3 threads";
  run.summary.jobs = 4;
  run.summary.devices = 2;
  run.summary.chunks = 5;
  run.summary.greeks = true;

  auto const back = cli::decode_run(cli::encode_run(run));
  REQUIRE(back.results.size() == 2);
  auto const& x = back.results[0];
  CHECK(x.id == "A");
  CHECK(std::memcmp(&x.price, &a.price, sizeof(double)) == 0);
  CHECK(std::signbit(x.std_error));
  CHECK(x.ci_low == a.ci_low);
  CHECK(std::isinf(x.ci_high));
  CHECK(x.paths == a.paths);
  REQUIRE(x.greeks);
  CHECK(x.greeks->method == greek_method::central_bumps);
  CHECK(x.greeks->delta.std_error == 1e-300);
  CHECK(x.greeks->deltas.size() == 2);
  CHECK(x.greeks->deltas[1].std_error == std::nextafter(4.0, 5.0));
  CHECK(x.greeks->cross_gammas[0].value == -7.25);
  auto const& y = back.results[1];
  CHECK(y.id == b.id);
  CHECK(y.status == trade_status::error);
  CHECK(std::isnan(y.price));
  CHECK(y.message == b.message);
  CHECK_FALSE(y.greeks);
  CHECK(back.summary.trades == 2);
  CHECK(back.summary.failed == 1);
  CHECK(back.summary.paths == 123);
  CHECK(back.summary.device_name == "CPU, 3 threads");
  CHECK(back.summary.chunks == 5);
  CHECK(back.summary.devices == 2);
  CHECK(back.summary.greeks);
  CHECK_THROWS_AS(cli::decode_run("not cbor"), configuration_error);
}
