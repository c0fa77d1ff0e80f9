// Path-dependent products on the CPU backend against closed forms and exact identities.
#include "catch.hpp"
#include "cpu_pricing.hpp"
#include "mcprice/engine.hpp"
#include "mcprice/market_reader.hpp"
#include "path_references.hpp"
#include "pricing_cases.hpp"

#include <cmath>
#include <cstring>

using namespace mcprice;
using namespace mcprice::testing;

namespace {

constexpr flat_bs flat{100.0, 0.05, 0.02, 0.25, 1.0};

market_data flat_market()
{
  return parse_market(R"({"rate": 0.05, "assets": {"X": {"spot": 100, "dividend_yield": 0.02, "vol": 0.25}}})", "flat");
}

trade path_trade(std::string id, product_kind p, option_type type, std::string asset, double maturity)
{
  trade t;
  t.id = std::move(id);
  t.product = p;
  t.type = type;
  t.underlyings = {std::move(asset)};
  t.maturity = maturity;
  return t;
}

pricing_run price(const market_data& m, std::vector<trade> trades, std::int64_t paths = 400'000,
                  std::int64_t steps = 64)
{
  return price_on_cpu(m, std::move(trades), paths, steps);
}

void check_close(const trade_result& r, double reference, double allowance = 0.0)
{
  INFO(r.id << ": mc " << r.price << " +- " << r.std_error << ", reference " << reference << " " << r.message);
  REQUIRE(r.status == trade_status::ok);
  CHECK(std::abs(r.price - reference) <= 4.0 * r.std_error + allowance + 2e-6 * std::abs(reference));
}

}  // namespace

TEST_CASE("geometric Asians match the discrete closed form, with term structures")
{
  auto const m = test_market();
  const asset& curve = m.assets()[*m.find("CURVE")];
  trade a = path_trade("geo-call-12", product_kind::asian, option_type::call, "CURVE", 1.5);
  a.averaging = averaging_kind::geometric;
  a.strike = 50.0;
  a.fixings = 12;
  trade b = path_trade("geo-put-times", product_kind::asian, option_type::put, "CURVE", 2.0);
  b.averaging = averaging_kind::geometric;
  b.strike = 52.0;
  b.fixing_times = {0.0, 0.25, 0.5, 1.0, 1.75, 2.0};
  trade c = path_trade("geo-floating-call", product_kind::asian, option_type::call, "CURVE", 1.0);
  c.averaging = averaging_kind::geometric;
  c.strike_type = strike_kind::floating;
  c.fixings = 4;
  auto const run = price(m, {a, b, c});
  std::vector<double> twelve;
  for (int i = 1; i <= 12; ++i) twelve.push_back(1.5 * i / 12.0);
  check_close(run.results[0], geometric_asian(m, curve, twelve, 1.5, 50.0, true, false));
  check_close(run.results[1], geometric_asian(m, curve, b.fixing_times, 2.0, 52.0, false, false));
  check_close(run.results[2], geometric_asian(m, curve, {0.25, 0.5, 0.75, 1.0}, 1.0, 0.0, true, true));
}

TEST_CASE("an arithmetic Asian call is worth at least the geometric one on the same paths")
{
  auto const m = flat_market();
  trade arith = path_trade("asian", product_kind::asian, option_type::call, "X", 1.0);
  arith.strike = 100.0;
  arith.fixings = 52;
  trade geo = arith;
  geo.averaging = averaging_kind::geometric;
  engine_options o;
  o.backend = backend_choice::cpu;
  o.paths = 100'000;
  o.control_variates = false;  // the plain estimator, path by path
  portfolio a_book;
  a_book.trades = {arith};
  portfolio g_book;
  g_book.trades = {geo};  // same id, so the same paths
  CHECK(engine(m, o).price(a_book).results[0].price >= engine(m, o).price(g_book).results[0].price);
}

TEST_CASE("the geometric control variate keeps arithmetic Asian prices and cuts their variance")
{
  auto const m = test_market();
  trade fixed = path_trade("cv-fixed", product_kind::asian, option_type::call, "CURVE", 1.5);
  fixed.strike = 50.0;
  fixed.fixings = 12;
  trade floating = path_trade("cv-floating", product_kind::asian, option_type::put, "CURVE", 1.0);
  floating.strike_type = strike_kind::floating;
  floating.fixing_times = {0.0, 0.25, 0.5, 0.75, 1.0};
  engine_options o;
  o.backend = backend_choice::cpu;
  o.paths = 200'000;
  portfolio book;
  book.trades = {fixed, floating};
  auto const cv = engine(m, o).price(book);
  o.control_variates = false;
  auto const plain = engine(m, o).price(book);
  for (std::size_t i = 0; i < 2; ++i) {
    auto const& c = cv.results[i];
    auto const& p = plain.results[i];
    INFO(c.id << ": control " << c.price << " +- " << c.std_error << ", plain " << p.price << " +- " << p.std_error);
    CHECK(std::abs(c.price - p.price) <= 4.0 * std::hypot(c.std_error, p.std_error));
    CHECK(p.std_error / c.std_error > 3.0);  // variance at least 9 times smaller
  }
}

TEST_CASE("continuous knock-outs match the reflection closed forms; the bridge makes 64 steps enough")
{
  auto const m = flat_market();
  trade doc = path_trade("do-call", product_kind::barrier, option_type::call, "X", 1.0);
  doc.strike = 100.0;
  doc.barrier = 85.0;
  doc.barrier_type = barrier_kind::down_out;
  trade uop = path_trade("uo-put", product_kind::barrier, option_type::put, "X", 1.0);
  uop.strike = 105.0;
  uop.barrier = 120.0;
  uop.barrier_type = barrier_kind::up_out;
  auto const run = price(m, {doc, uop});
  check_close(run.results[0], knock_out_by_reflection(flat, 100.0, 85.0, true));
  check_close(run.results[1], knock_out_by_reflection(flat, 105.0, 120.0, false));
}

TEST_CASE("a knock-out rebate is paid at the hit; knock-in plus knock-out is the vanilla on the same paths")
{
  auto const m = flat_market();
  trade ko = path_trade("in-out", product_kind::barrier, option_type::call, "X", 1.0);
  ko.strike = 100.0;
  ko.barrier = 85.0;
  ko.barrier_type = barrier_kind::down_out;
  trade ki = ko;
  ki.barrier_type = barrier_kind::down_in;
  auto const out = price(m, {ko});
  auto const in = price(m, {ki});  // same id: the same paths
  double const vanilla = black_scholes::call(flat.at(100.0, 100.0));
  double const sum = out.results[0].price + in.results[0].price;
  CHECK(std::abs(sum - vanilla) <= 4.0 * (out.results[0].std_error + in.results[0].std_error));

  trade rebate = ko;
  rebate.id = "rebate";
  rebate.rebate = 3.0;
  auto const r = price(m, {rebate});
  check_close(r.results[0],
              knock_out_by_reflection(flat, 100.0, 85.0, true) + 3.0 * one_touch_at_hit(flat, 85.0, true));
}

TEST_CASE("touch options match their closed forms; one-touch plus no-touch pays for sure", "[heavy]")
{
  auto const m = flat_market();
  trade hit = path_trade("touch", product_kind::touch, option_type::one_touch, "X", 1.0);
  hit.barrier = 80.0;
  hit.barrier_type = barrier_kind::down;
  hit.payout = 10.0;
  hit.pay_at = payment_time::hit;
  trade expiry = hit;
  expiry.pay_at = payment_time::expiry;
  trade up = path_trade("touch-up", product_kind::touch, option_type::one_touch, "X", 1.0);
  up.barrier = 125.0;
  up.barrier_type = barrier_kind::up;
  up.payout = 1.0;
  auto const a = price(m, {hit});
  auto const b = price(m, {expiry});  // same id: the same paths
  auto const c = price(m, {up});
  check_close(a.results[0], 10.0 * one_touch_at_hit(flat, 80.0, true));
  check_close(b.results[0], 10.0 * one_touch_at_expiry(flat, 80.0, true));
  check_close(c.results[0], one_touch_at_expiry(flat, 125.0, false));

  trade no = expiry;
  no.type = option_type::no_touch;
  auto const n = price(m, {no});
  CHECK(std::abs(n.results[0].price + b.results[0].price - 10.0 * std::exp(-0.05)) < 1e-5);
}

TEST_CASE("path products reject barriers on the wrong side of spot and keep reproducible bits")
{
  auto const m = flat_market();
  trade bad = path_trade("wrong-side", product_kind::barrier, option_type::call, "X", 1.0);
  bad.strike = 100.0;
  bad.barrier = 95.0;
  bad.barrier_type = barrier_kind::up_out;
  auto const run = price(m, {bad}, 1000);
  CHECK(run.results[0].message == "trade wrong-side: barrier 95 is not above spot 100 for a barrier of kind up-out");

  trade asian = path_trade("bits", product_kind::asian, option_type::put, "X", 1.0);
  asian.strike = 100.0;
  asian.fixings = 12;
  engine_options o;
  o.backend = backend_choice::cpu;
  o.paths = 30'001;
  portfolio book;
  book.trades = {asian};
  o.threads = 1;
  auto const one = engine(m, o).price(book);
  o.threads = 3;
  auto const three = engine(m, o).price(book);
  CHECK(std::memcmp(&one.results[0].price, &three.results[0].price, sizeof(double)) == 0);
}

TEST_CASE("continuous lookbacks match Goldman-Sosin-Gatto and Conze-Viswanathan, fresh and seasoned", "[heavy]")
{
  auto const m = flat_market();
  struct lookback_case {
    const char* id;
    bool floating;
    option_type type;
    double strike;
    double running;  // 0: fresh
  };
  lookback_case const cases[] = {{"float-call", true, option_type::call, 0.0, 0.0},
                                 {"float-put", true, option_type::put, 0.0, 0.0},
                                 {"fixed-call-otm", false, option_type::call, 110.0, 0.0},
                                 {"fixed-put-itm", false, option_type::put, 105.0, 0.0},
                                 {"float-call-seasoned", true, option_type::call, 0.0, 90.0},
                                 {"fixed-call-seasoned", false, option_type::call, 100.0, 115.0}};
  std::vector<trade> trades;
  for (auto const& c : cases) {
    trade t = path_trade(c.id, product_kind::lookback, c.type, "X", 1.0);
    if (c.floating) t.strike_type = strike_kind::floating;
    else t.strike = c.strike;
    if (c.running > 0.0) t.running_extreme = c.running;
    trades.push_back(t);
  }
  auto const run = price(m, trades);
  for (std::size_t i = 0; i < trades.size(); ++i) {
    auto const& c = cases[i];
    double const extreme = c.running > 0.0 ? c.running : 100.0;
    check_close(run.results[i], lookback(flat, c.floating, c.type == option_type::call, c.strike, extreme));
  }
}

TEST_CASE("a discretely monitored lookback is worth less than the continuous one and converges to it")
{
  auto const m = flat_market();
  trade cont = path_trade("lb", product_kind::lookback, option_type::call, "X", 1.0);
  cont.strike = 110.0;
  trade coarse = cont;
  coarse.monitoring = monitoring_kind::discrete;
  coarse.fixings = 12;
  trade fine = coarse;
  fine.fixings = 1000;
  auto const c = price(m, {cont}, 100'000);
  auto const d12 = price(m, {coarse}, 100'000);
  auto const d1000 = price(m, {fine}, 100'000);
  double const se = c.results[0].std_error + d12.results[0].std_error;
  CHECK(d12.results[0].price < c.results[0].price - 4.0 * se);
  CHECK(d12.results[0].price < d1000.results[0].price);
  // Broadie-Glasserman-Kou: discrete monitoring shifts the barrier by 0.5826 sigma sqrt(dt).
  CHECK(d1000.results[0].price < c.results[0].price);
  CHECK(c.results[0].price - d1000.results[0].price < 0.05 * c.results[0].price);
}

TEST_CASE("path products without their fixings are clear per-trade errors")
{
  auto const m = flat_market();
  trade asian = path_trade("no-fixings", product_kind::asian, option_type::call, "X", 1.0);
  asian.strike = 100.0;
  trade discrete = path_trade("no-monitoring-times", product_kind::barrier, option_type::call, "X", 1.0);
  discrete.strike = 100.0;
  discrete.barrier = 120.0;
  discrete.barrier_type = barrier_kind::up_out;
  discrete.monitoring = monitoring_kind::discrete;
  trade times = asian;
  times.id = "with-times";
  times.fixing_times = {0.5, 1.0};
  auto const run = price(m, {asian, discrete, times}, 1000);
  CHECK(run.results[0].message == "trade no-fixings: an asian needs fixings or fixing_times");
  CHECK(run.results[1].message == "trade no-monitoring-times: discrete monitoring needs fixings or fixing_times");
  CHECK(run.results[2].status == trade_status::ok);
}
