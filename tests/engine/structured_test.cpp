// Autocallables and cliquets on the CPU backend: closed-form identities under GBM with curves
// (a zero-coupon bond plus a strip of cash digitals; bond less a put; a cliquet's forward-start
// returns, with and without local bounds, and QuantLib's cliquet engine), the same paths'
// orderings (knock-in level, memory), the same identities on Heston and local vol, sticky Greeks
// of the digital strip, and the per-trade errors that name the field.
#include "catch.hpp"
#include "mcprice/black_scholes.hpp"
#include "mcprice/engine.hpp"
#include "mcprice/market_reader.hpp"
#include "result_bits.hpp"
#include "trade_on.hpp"

#include <cmath>
#include <string>
#include <vector>

using namespace mcprice;
using namespace mcprice::testing;

namespace {

// G: GBM on a rising rate curve, a dividend curve and a vol term structure; F: flat GBM for the
// Greeks, F2 its copy moving with it (correlation 1) and F3 independent of both; H: Heston; L:
// local vol on a flat surface; M: GBM with Merton jumps.
market_data structured_market()
{
  return parse_market(R"({
    "discount_curve": {"times": [0.5, 1, 2, 5], "zero_rates": [0.02, 0.025, 0.03, 0.035]},
    "assets": {
      "G": {"spot": 100, "dividend_yield": {"times": [1, 3], "rates": [0.01, 0.015]},
            "vol": {"times": [0.5, 1, 3], "vols": [0.28, 0.25, 0.22]}},
      "F": {"spot": 100, "dividend_yield": 0.01, "vol": 0.25},
      "H": {"spot": 100, "model": "heston",
            "heston": {"v0": 0.04, "kappa": 1.5, "theta": 0.05, "xi": 0.5, "rho": -0.7}},
      "L": {"spot": 100, "dividend_yield": 0.01, "model": "local_vol",
            "vol_surface": {"expiries": [0.5, 1, 2, 4], "strikes": [40, 70, 100, 130, 200],
                            "vols": [[0.2, 0.2, 0.2, 0.2, 0.2], [0.2, 0.2, 0.2, 0.2, 0.2],
                                     [0.2, 0.2, 0.2, 0.2, 0.2], [0.2, 0.2, 0.2, 0.2, 0.2]]}},
      "M": {"spot": 100, "dividend_yield": 0.01, "vol": 0.2,
            "jumps": {"intensity": 0.5, "mean": -0.1, "vol": 0.15}},
      "F2": {"spot": 100, "dividend_yield": 0.01, "vol": 0.25},
      "F3": {"spot": 50, "dividend_yield": 0.02, "vol": 0.3}
    },
    "correlation": {"F,F2": 1.0}})",
                      "structured");
}

pricing_run price(const market_data& m, std::vector<trade> trades, std::int64_t paths, std::int64_t steps,
                  bool greeks = false, path_precision precision = path_precision::float32)
{
  engine_options o;
  o.backend = backend_choice::cpu;
  o.precision = precision;
  o.paths = paths;
  o.steps = steps;
  o.greeks = greeks;
  portfolio book;
  book.trades = std::move(trades);
  return engine(m, o).price(book);
}

std::vector<double> const quarterly = {0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0};

trade autocallable_on(const std::string& asset, const std::string& id)
{
  trade t = trade_on(asset, id, product_kind::autocallable, option_type::call, 1.0, 2.0);
  t.strike.reset();
  t.observation_times = quarterly;
  return t;
}

// A step-down note paying 2% coupons above `coupon_level`.
trade step_down_note(const std::string& asset, const std::string& id, double coupon_level)
{
  trade t = autocallable_on(asset, id);
  t.autocall_barrier = {1.05, 1.0, 0.95, 0.9, 0.9, 0.85, 0.85, 0.8};
  t.coupon = 0.02;
  t.coupon_barrier = {coupon_level};
  return t;
}

// A worst-of of F and F3 that never calls, paying `coupon` above `level`.
trade worst_of_strip(const std::string& id, double coupon, double level)
{
  trade t = autocallable_on("F", id);
  t.underlyings = {"F", "F3"};
  t.autocall_barrier = {100.0};
  t.coupon = coupon;
  t.coupon_barrier = {level};
  return t;
}

trade cliquet_on(const std::string& asset, const std::string& id, std::int64_t resets)
{
  trade t = trade_on(asset, id, product_kind::cliquet, option_type::call, 0.0, 2.0);
  t.strike.reset();
  t.fixings = resets;
  return t;
}

black_scholes::inputs inputs_at(const market_data& m, const std::string& name, double strike, double t)
{
  const asset& a = m.assets()[*m.find(name)];
  // log_forward is ln(F / S0); total_variance is w(t), not a rate.
  return {a.spot * std::exp(m.log_forward(a, t)), strike, a.vol.total_variance(t), m.discount().discount(t)};
}

// Autocall barriers out of reach, no knock-in: the bond and a cash digital on the coupon barrier
// at each observation.
double digital_strip(const market_data& m, const std::string& name, double coupon, double level)
{
  double v = m.discount().discount(2.0);
  for (double t : quarterly) v += black_scholes::cash_digital_call(inputs_at(m, name, level, t), coupon);
  return v;
}

void check_within(const trade_result& r, double expected, double allowance)
{
  INFO(r.id << ": " << r.message << " price " << r.price << " +- " << r.std_error << " vs " << expected);
  REQUIRE(r.status == trade_status::ok);
  CHECK(std::abs(r.price - expected) <= 4.0 * r.std_error + allowance);
}

}  // namespace

TEST_CASE("an autocallable that never calls is a bond plus a strip of cash digitals", "[structured]")
{
  market_data const m = structured_market();
  trade t = autocallable_on("G", "strip");
  t.autocall_barrier = {100.0};
  t.coupon = 0.02;
  t.coupon_barrier = {0.9};
  auto const run = price(m, {t}, 200000, 8);
  check_within(run.results[0], digital_strip(m, "G", 0.02, 90.0), 2e-4);
}

TEST_CASE("with the knock-in seen at maturity an autocallable is a bond less a put over its strike", "[structured]")
{
  market_data const m = structured_market();
  trade t = autocallable_on("G", "bond-put");
  t.autocall_barrier = {100.0};
  t.ki_barrier = 1.0;
  t.strike = 0.95;
  // Knocked in at or below the initial level, so every loss max(K - P, 0) / K is taken.
  double const k = 95.0;
  double const expected = m.discount().discount(2.0) - black_scholes::put(inputs_at(m, "G", k, 2.0)) / k;
  auto const run = price(m, {t}, 200000, 8);
  check_within(run.results[0], expected, 2e-4);
}

TEST_CASE("seasoned autocallables measure performance from their initial level", "[structured]")
{
  market_data const m = structured_market();
  trade fresh = autocallable_on("G", "seasoned");
  fresh.autocall_barrier = {100.0};
  fresh.coupon = 0.03;
  fresh.coupon_barrier = {1.1};
  trade seasoned = fresh;
  seasoned.initial_levels = {80.0};
  seasoned.coupon_barrier = {1.1};
  auto const run = price(m, {seasoned}, 200000, 8);
  // Coupons when S >= 1.1 x 80.
  check_within(run.results[0], digital_strip(m, "G", 0.03, 88.0), 2e-4);
}

TEST_CASE("a seasoned note already below its continuous knock-in is knocked in", "[structured]")
{
  market_data const m = structured_market();
  for (bool const worst_of : {false, true}) {
    trade t = autocallable_on("G", worst_of ? "knocked-worst-of" : "knocked");
    t.autocall_barrier = {100.0};
    t.ki_barrier = 0.8;
    t.ki_monitoring = knock_in_monitoring::continuous;
    t.initial_levels = {130.0};  // performance today 100 / 130 < 0.8
    if (worst_of) {
      // A second asset far above its level: the worst is G's.
      t.underlyings = {"G", "F3"};
      t.initial_levels = {130.0, 10.0};
    }
    double const expected = m.discount().discount(2.0) - black_scholes::put(inputs_at(m, "G", 130.0, 2.0)) / 130.0;
    check_within(price(m, {t}, 200000, 20).results[0], expected, 2e-4);
  }
}

TEST_CASE("a higher knock-in never raises an autocallable's price, memory never lowers it", "[structured]")
{
  market_data const m = structured_market();
  for (auto monitoring : {knock_in_monitoring::continuous, knock_in_monitoring::discrete}) {
    trade t = step_down_note("G", "order", 0.7);
    t.ki_monitoring = monitoring;
    t.fixings = 24;
    std::vector<trade> book;
    for (double ki : {0.5, 0.6, 0.7}) {
      t.ki_barrier = ki;
      book.push_back(t);  // one id, so the same normals
    }
    t.memory = true;
    book.push_back(t);
    std::vector<double> prices;
    for (auto const& x : book) prices.push_back(price(m, {x}, 20000, 100).results[0].price);
    INFO("knock-in monitoring " << to_string(monitoring));
    CHECK(prices[1] <= prices[0]);
    CHECK(prices[2] <= prices[1]);
    CHECK(prices[2] < prices[0]);
    CHECK(prices[3] >= prices[2]);
  }
}

TEST_CASE("autocallables' coupons and knock-ins on every model", "[structured]")
{
  market_data const m = structured_market();
  for (const char* name : {"H", "L", "M"}) {
    trade strip = autocallable_on(name, std::string("strip-") + name);
    strip.autocall_barrier = {100.0};
    strip.coupon = 0.02;
    strip.coupon_barrier = {0.0};
    // Every coupon is paid: the bond plus the coupons' discounted sum.
    double expected = m.discount().discount(2.0);
    for (double t : quarterly) expected += 0.02 * m.discount().discount(t);
    auto const run = price(m, {strip}, 20000, 16);
    INFO(name);
    CHECK(run.results[0].status == trade_status::ok);
    CHECK(std::abs(run.results[0].price - expected) <= 1e-5);
  }
  // Local vol on a flat surface is GBM at that vol: the bond less the put.
  trade t = autocallable_on("L", "lv-put");
  t.autocall_barrier = {100.0};
  t.ki_barrier = 1.0;
  const asset& l = m.assets()[*m.find("L")];
  double const expected =
      m.discount().discount(2.0) -
      black_scholes::put({100.0 * std::exp(m.log_forward(l, 2.0)), 100.0, 0.04 * 2.0, m.discount().discount(2.0)}) /
          100.0;
  check_within(price(m, {t}, 100000, 50).results[0], expected, 1e-3);
}

TEST_CASE("an unbounded cliquet is the sum of its forward-start returns", "[structured]")
{
  market_data const m = structured_market();
  for (const char* name : {"G", "H", "L", "M"}) {
    const asset& a = m.assets()[*m.find(name)];
    double expected = 0.0;
    for (int i = 1; i <= 8; ++i) {
      double const t0 = 0.25 * (i - 1);
      double const t1 = 0.25 * i;
      expected += std::exp(m.log_forward(a, t1) - m.log_forward(a, t0)) - 1.0;
    }
    expected *= m.discount().discount(2.0);
    auto const run = price(m, {cliquet_on(name, std::string("cliquet-") + name, 8)}, 100000, 16);
    INFO(name);
    check_within(run.results[0], expected, 2e-4);
  }
}

TEST_CASE("a cliquet with local bounds is a strip of forward-start call spreads", "[structured]")
{
  market_data const m = structured_market();
  trade t = cliquet_on("G", "bounded", 8);
  t.local_floor = -0.05;
  t.local_cap = 0.04;
  const asset& a = m.assets()[*m.find("G")];
  double expected = 0.0;
  for (int i = 1; i <= 8; ++i) {
    double const t0 = 0.25 * (i - 1);
    double const t1 = 0.25 * i;
    double const f = std::exp(m.log_forward(a, t1) - m.log_forward(a, t0));
    double const w = a.vol.total_variance(t1) - a.vol.total_variance(t0);
    auto const call = [&](double k) { return black_scholes::call({f, k, w, 1.0}); };
    // clamp(R - 1, lf, lc) = lf + (R - (1 + lf))+ - (R - (1 + lc))+
    expected += -0.05 + call(0.95) - call(1.04);
  }
  expected *= m.discount().discount(2.0);
  check_within(price(m, {t}, 200000, 8).results[0], expected, 1e-4);
  // A global floor above every outcome's sum pays the floor.
  t.global_floor = 0.5;
  t.global_cap = 0.6;
  auto const floored = price(m, {t}, 20000, 8).results[0];
  CHECK(std::abs(floored.price - 0.5 * m.discount().discount(2.0)) <= 1e-6);
}

TEST_CASE("a cliquet with local bounds matches QuantLib's cliquet engine", "[structured]")
{
  // tests/references/quantlib_cliquet.py: QuantLib 1.29's AnalyticCliquetEngine, zero rates and
  // yields, vol 0.2, 8 resets 0.2 years apart, returns held within [-3%, +4%].
  double const quantlib = 0.01862152246790208;
  market_data const m = parse_market(R"({"rate": 0.0, "assets": {"Q": {"spot": 100, "vol": 0.2}}})", "quantlib");
  trade t = trade_on("Q", "quantlib-cliquet", product_kind::cliquet, option_type::call, 0.0, 1.6);
  t.strike.reset();
  t.fixing_times = {0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6};
  t.local_floor = -0.03;
  t.local_cap = 0.04;
  // Allowance: float paths (a relative 1e-6 a period).
  check_within(price(m, {t}, 400000, 8).results[0], quantlib, 1e-5);
}

TEST_CASE("an autocallable's Greeks by scenario lanes match its digital strip's", "[structured][greeks]")
{
  market_data const m = structured_market();
  trade t = autocallable_on("F", "strip-greeks");
  t.autocall_barrier = {100.0};
  t.coupon = 0.05;
  t.coupon_barrier = {1.0};
  auto const run = price(m, {t}, 400000, 8, true);
  auto const& r = run.results[0];
  REQUIRE(r.status == trade_status::ok);
  REQUIRE(r.greeks);
  double delta = 0.0;
  double vega = 0.0;
  for (double ti : quarterly) {
    double const r_t = -std::log(m.discount().discount(ti)) / ti;
    auto const g = black_scholes::greeks(black_scholes::european_kind::cash_digital_call,
                                         {100.0, 100.0, ti, r_t, 0.01, 0.25}, 0.05);
    delta += g.delta;
    vega += g.vega;
  }
  INFO("delta " << r.greeks->delta.value << " +- " << r.greeks->delta.std_error << " vs " << delta);
  CHECK(std::abs(r.greeks->delta.value - delta) <= 4.0 * r.greeks->delta.std_error + 0.02 * std::abs(delta));
  INFO("vega " << r.greeks->vega.value << " +- " << r.greeks->vega.std_error << " vs " << vega);
  CHECK(std::abs(r.greeks->vega.value - vega) <= 4.0 * r.greeks->vega.std_error + 0.02 * std::abs(vega));
}

TEST_CASE("a worst-of autocallable of independent assets pays coupons on both digitals", "[structured]")
{
  market_data const m = structured_market();
  trade t = worst_of_strip("worst-strip", 0.03, 0.95);
  t.initial_levels = {100.0, 45.0};
  double expected = m.discount().discount(2.0);
  for (double ti : quarterly) {
    auto const f = inputs_at(m, "F", 95.0, ti);
    auto const f3 = inputs_at(m, "F3", 0.95 * 45.0, ti);
    // Cash digitals paying 1 at ti: their undiscounted values are the probabilities.
    double const p = black_scholes::cash_digital_call(f, 1.0) / f.discount;
    double const p3 = black_scholes::cash_digital_call(f3, 1.0) / f3.discount;
    expected += 0.03 * f.discount * p * p3;
  }
  check_within(price(m, {t}, 200000, 8).results[0], expected, 2e-4);
}

TEST_CASE("a worst-of autocallable's Greeks by scenario walks match its digitals', in float and double",
          "[structured][greeks]")
{
  market_data const m = structured_market();
  trade const t = worst_of_strip("worst-strip-greeks", 0.05, 1.0);
  auto const precision = GENERATE(path_precision::float32, path_precision::float64);
  auto const run = price(m, {t}, 200000, 8, true, precision);
  auto const& r = run.results[0];
  REQUIRE(r.status == trade_status::ok);
  REQUIRE(r.greeks);
  REQUIRE(r.greeks->deltas.size() == 2);
  // Each coupon is coupon x P(t) x N(d2_F) x N(d2_F3): delta and vega of F through its digital.
  double delta = 0.0;
  double vega = 0.0;
  double delta3 = 0.0;
  for (double ti : quarterly) {
    double const r_t = -std::log(m.discount().discount(ti)) / ti;
    auto const f = black_scholes::greeks(black_scholes::european_kind::cash_digital_call,
                                         {100.0, 100.0, ti, r_t, 0.01, 0.25}, 1.0);
    auto const f3 =
        black_scholes::greeks(black_scholes::european_kind::cash_digital_call, {50.0, 50.0, ti, r_t, 0.02, 0.3}, 1.0);
    double const df = m.discount().discount(ti);
    delta += 0.05 * f.delta * f3.price / df;
    vega += 0.05 * f.vega * f3.price / df;
    delta3 += 0.05 * f3.delta * f.price / df;
  }
  auto const near = [](const greek_estimate& g, double expected, const char* what) {
    INFO(what << " " << g.value << " +- " << g.std_error << " vs " << expected);
    CHECK(std::abs(g.value - expected) <= 4.0 * g.std_error + 0.02 * std::abs(expected));
  };
  near(r.greeks->deltas[0], delta, "delta F");
  near(r.greeks->deltas[1], delta3, "delta F3");
  near(r.greeks->vegas[0], vega, "vega F");
  // Independent assets: moving the correlation together moves the joint digitals only a little.
  CHECK(std::isfinite(r.greeks->correlation_vega.value));
}

TEST_CASE("a worst-of of two assets that move as one prices as the single-asset trade", "[structured]")
{
  market_data const m = structured_market();
  for (auto monitoring : {knock_in_monitoring::maturity, knock_in_monitoring::continuous}) {
    trade one = step_down_note("F", "single", 0.75);
    one.memory = true;
    one.ki_barrier = 0.65;
    one.ki_monitoring = monitoring;
    trade both = one;
    both.id = "worst";
    both.underlyings = {"F", "F2"};
    auto const run = price(m, {one, both}, 200000, 50);
    auto const& a = run.results[0];
    auto const& b = run.results[1];
    INFO(to_string(monitoring) << ": " << b.message << " single " << a.price << " +- " << a.std_error << ", worst-of "
                               << b.price << " +- " << b.std_error);
    REQUIRE(b.status == trade_status::ok);
    CHECK(std::abs(a.price - b.price) <= 4.0 * std::hypot(a.std_error, b.std_error) + 1e-4);
  }
  // Moving both spots moves the one asset: the two deltas add up to the single trade's.
  trade one = step_down_note("F", "single-greeks", 1.0);
  one.ki_barrier = 0.65;
  trade both = one;
  both.id = "worst-greeks";
  both.underlyings = {"F", "F2"};
  auto const run = price(m, {one, both}, 100000, 8, true);
  REQUIRE(run.results[1].greeks);
  auto const& g1 = *run.results[0].greeks;
  auto const& g2 = *run.results[1].greeks;
  double const sum = g2.deltas[0].value + g2.deltas[1].value;
  double const err = std::hypot(g1.delta.std_error, std::hypot(g2.deltas[0].std_error, g2.deltas[1].std_error));
  INFO("single delta " << g1.delta.value << ", worst-of deltas' sum " << sum << " +- " << err);
  CHECK(std::abs(sum - g1.delta.value) <= 4.0 * err + 0.01 * std::abs(g1.delta.value));
}

TEST_CASE("structured products keep their bits across threads and price on Sobol points", "[structured]")
{
  market_data const m = structured_market();
  trade note = autocallable_on("G", "note");
  note.autocall_barrier = {1.0, 0.95, 0.9, 0.9, 0.85, 0.85, 0.8, 0.8};
  note.coupon = 0.02;
  note.memory = true;
  note.ki_barrier = 0.6;
  note.ki_monitoring = knock_in_monitoring::continuous;
  trade worst = note;
  worst.id = "worst";
  worst.underlyings = {"F", "F3"};
  trade c = cliquet_on("H", "cliquet", 8);
  c.local_cap = 0.05;
  portfolio book;
  book.trades = {note, worst, c};
  engine_options o;
  o.backend = backend_choice::cpu;
  o.paths = 4000;
  o.steps = 40;
  o.threads = 1;
  auto const one = engine(m, o).price(book);
  o.threads = 3;
  CHECK(same_result_bits(one, engine(m, o).price(book)));
  // Sobol: an unbounded cliquet on GBM against its forward-start sum.
  const asset& a = m.assets()[*m.find("G")];
  double expected = 0.0;
  for (int i = 1; i <= 8; ++i)
    expected += std::exp(m.log_forward(a, 0.25 * i) - m.log_forward(a, 0.25 * (i - 1))) - 1.0;
  expected *= m.discount().discount(2.0);
  o.rng = rng_kind::sobol;
  o.rqmc_replicates = 16;
  o.paths = 1 << 16;
  portfolio sobol;
  sobol.trades = {cliquet_on("G", "sobol-cliquet", 8), note, worst};
  auto const run = engine(m, o).price(sobol);
  check_within(run.results[0], expected, 2e-4);
  for (auto const& r : run.results) {
    INFO(r.id << ": " << r.message);
    CHECK(r.status == trade_status::ok);
  }
}

TEST_CASE("an autocallable's and a cliquet's bad fields are per-trade errors that name them", "[structured]")
{
  market_data const m = structured_market();
  std::vector<trade> bad;
  auto add = [&](trade t, const char* id) {
    t.id = id;
    bad.push_back(std::move(t));
  };
  trade a = autocallable_on("G", "x");
  trade unsorted = a;
  unsorted.observation_times = {0.5, 0.25, 2.0};
  add(unsorted, "unsorted");
  trade beyond = a;
  beyond.observation_times = {0.5, 2.5};
  add(beyond, "beyond");
  trade short_list = a;
  short_list.autocall_barrier = {1.0, 0.9};
  add(short_list, "barriers");
  trade levels = a;
  levels.initial_levels = {100.0, 90.0};
  add(levels, "levels-count");
  trade negative_level = a;
  negative_level.initial_levels = {-1.0};
  add(negative_level, "levels-sign");
  trade coupon = a;
  coupon.coupon = -0.01;
  add(coupon, "coupon");
  trade c = cliquet_on("G", "y", 4);
  c.local_floor = 0.1;
  c.local_cap = 0.05;
  add(c, "local-bounds");
  c.local_floor.reset();
  c.global_floor = 0.3;
  c.global_cap = 0.2;
  add(c, "global-bounds");
  auto const run = price(m, bad, 1000, 8);
  std::vector<std::string> const names = {"observation_times", "observation_times", "autocall_barrier",
                                          "initial_levels",    "initial_levels",    "coupon",
                                          "local_floor",       "global_floor"};
  for (std::size_t i = 0; i < bad.size(); ++i) {
    INFO(bad[i].id << ": " << run.results[i].message);
    CHECK(run.results[i].status == trade_status::error);
    CHECK(run.results[i].message.find(names[i]) != std::string::npos);
  }
}
