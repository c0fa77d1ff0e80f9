// Greeks in the same pass as the price (CPU backend; the GPU suite runs the same checks):
// Black-Scholes' analytic Greeks, unchanged prices, reproducible bits, the statistics and the
// output columns.
#include "catch.hpp"
#include "greek_checks.hpp"
#include "heston_reference.hpp"
#include "mcprice/engine.hpp"
#include "mcprice/geometric_asian.hpp"
#include "mcprice/input_error.hpp"
#include "mcprice/market_reader.hpp"
#include "mcprice/results_writer.hpp"
#include "pricing_cases.hpp"
#include "statistics/greek_statistics.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstring>
#include <sstream>
#include <tuple>

using namespace mcprice;
using namespace mcprice::testing;

namespace {

engine greek_engine(std::int64_t paths, bool greeks = true, unsigned threads = 0, bool antithetic = true)
{
  engine_options o;
  o.backend = backend_choice::cpu;
  o.paths = paths;
  o.threads = threads;
  o.greeks = greeks;
  o.antithetic = antithetic;
  return engine(test_market(), o);
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

bool same_greek_bits(const trade_greeks& a, const trade_greeks& b)
{
  for (auto [x, y] :
       {std::pair{a.delta, b.delta}, {a.gamma, b.gamma}, {a.vega, b.vega}, {a.theta, b.theta}, {a.rho, b.rho}}) {
    if (!same_bits(x.value, y.value) || !same_bits(x.std_error, y.std_error)) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("the analytic Greeks are the derivatives of the closed forms")
{
  // Central differences of black_scholes::greeks' own price, in double: checks the oracle.
  using K = black_scholes::european_kind;
  black_scholes::flat_inputs const base{100.0, 95.0, 1.3, 0.04, 0.015, 0.27};
  for (K kind :
       {K::call, K::put, K::cash_digital_call, K::cash_digital_put, K::asset_digital_call, K::asset_digital_put}) {
    auto const g = black_scholes::greeks(kind, base, 3.0);
    auto price = [&](auto bump) {
      auto in = base;
      bump(in);
      return black_scholes::greeks(kind, in, 3.0).price;
    };
    double const h = 1e-4;
    double const delta = (price([&](auto& i) { i.spot += h; }) - price([&](auto& i) { i.spot -= h; })) / (2 * h);
    double const gamma =
        (price([&](auto& i) { i.spot += 0.01; }) - 2 * g.price + price([&](auto& i) { i.spot -= 0.01; })) / 1e-4;
    double const vega = (price([&](auto& i) { i.vol += h; }) - price([&](auto& i) { i.vol -= h; })) / (2 * h);
    double const theta =
        -(price([&](auto& i) { i.maturity += h; }) - price([&](auto& i) { i.maturity -= h; })) / (2 * h);
    double const rho = (price([&](auto& i) { i.rate += h; }) - price([&](auto& i) { i.rate -= h; })) / (2 * h);
    INFO("kind " << static_cast<int>(kind));
    CHECK(g.delta == Approx(delta).epsilon(1e-6).margin(1e-8));
    CHECK(g.gamma == Approx(gamma).epsilon(1e-4).margin(1e-7));
    CHECK(g.vega == Approx(vega).epsilon(1e-6).margin(1e-7));
    CHECK(g.theta == Approx(theta).epsilon(1e-6).margin(1e-7));
    CHECK(g.rho == Approx(rho).epsilon(1e-6).margin(1e-7));
  }
}

TEST_CASE("CPU Greeks agree with Black-Scholes within 4 standard errors")
{
  auto const book = reference_book();
  SECTION("antithetic pairs")
  {
    check_greeks_against_black_scholes(book, test_market(), greek_engine(400'000).price(book));
  }
  SECTION("plain paths")
  {
    check_greeks_against_black_scholes(book, test_market(), greek_engine(400'000, true, 0, false).price(book));
  }
}

TEST_CASE("asking for Greeks leaves every price's bits unchanged")
{
  auto const book = reference_book();
  auto const with = greek_engine(30'001).price(book);
  auto const without = greek_engine(30'001, false).price(book);
  for (std::size_t i = 0; i < book.trades.size(); ++i) {
    INFO(book.trades[i].id);
    CHECK(same_bits(with.results[i].price, without.results[i].price));
    CHECK(same_bits(with.results[i].std_error, without.results[i].std_error));
    CHECK(with.results[i].greeks.has_value());
    CHECK_FALSE(without.results[i].greeks.has_value());
  }
}

TEST_CASE("CPU Greeks are bit-identical across reruns and thread counts", "[concurrency]")
{
  auto const book = reference_book();
  auto const base = greek_engine(20'001, true, 1).price(book);
  for (unsigned threads : {1U, 3U}) {
    auto const again = greek_engine(20'001, true, threads).price(book);
    for (std::size_t i = 0; i < book.trades.size(); ++i) {
      INFO(book.trades[i].id << " with " << threads << " threads");
      CHECK(same_greek_bits(*base.results[i].greeks, *again.results[i].greeks));
    }
  }
}

TEST_CASE("Greek statistics: means and standard errors of linear combinations of the channels")
{
  // Two samples with P = (1, 3), D = (2, 6), G = (0, 4): mean D = 4, var D = 8, so with the
  // pathwise factors (S0 = 2, a = 0.5, T = 1) delta = scale * 4 / 2 and its std error
  // scale * sqrt(8 / 2) / 2.
  moments p{};
  p.sum = 4.0;
  p.sum_sq = 10.0;
  greek_moments g{};
  g.sum_d = 8.0;
  g.sum_g = 4.0;
  g.dd = 40.0;
  g.gg = 16.0;
  g.pd = 20.0;
  g.pg = 12.0;
  g.dg = 24.0;
  detail::greek_inputs const in{2.0, 1.0, 0.05, 0.03, 0.5, true};
  auto const out = detail::make_greeks(p, g, 2, 3.0, in);
  CHECK(out.delta.value == Approx(3.0 * 4.0 / 2.0));
  CHECK(out.delta.std_error == Approx(3.0 * std::sqrt(8.0 / 2.0) / 2.0));
  // gamma = scale * mean G / (S0^2 a) = 3 * 2 / 2; vega = scale * sqrt(T) * mean G.
  CHECK(out.gamma.value == Approx(3.0));
  CHECK(out.vega.value == Approx(6.0));
  // rho = T (S0 delta - V) per unit: samples 1*(2 - 1) = 1 and 1*(6 - 3) = 3: mean 2, var 2.
  CHECK(out.rho.value == Approx(6.0));
  CHECK(out.rho.std_error == Approx(3.0 * std::sqrt(2.0 / 2.0)));
  CHECK(out.method == greek_method::pathwise);
}

namespace {

// Nine assets: a basket of all of them is beyond max_basket_greek_assets (priced, no Greeks).
market_data nine_asset_market()
{
  std::string assets = R"("A": {"spot": 100, "vol": 0.2}, "B": {"spot": 50, "vol": 0.3})";
  for (int i = 0; i < 7; ++i) assets += ", \"N" + std::to_string(i) + "\": {\"spot\": 10, \"vol\": 0.25}";
  return parse_market("{\"rate\": 0.03, \"assets\": {" + assets + "}, \"correlation\": {\"A,B\": 0.5}}",
                      "output-market");
}

}  // namespace

TEST_CASE("a trade without Greeks is counted once per book trade, Sobol replicates folded")
{
  portfolio book;
  book.trades = {make_trade("vanilla", product_kind::vanilla, option_type::call, "A", 100, 1),
                 make_trade("wide", product_kind::basket, option_type::call, "A", 20, 1)};
  book.trades[1].underlyings = {"A", "B", "N0", "N1", "N2", "N3", "N4", "N5", "N6"};
  engine_options o;
  o.backend = backend_choice::cpu;
  o.paths = 4096;
  o.greeks = true;
  o.rng = rng_kind::sobol;
  o.rqmc_replicates = 8;
  auto const run = engine(nine_asset_market(), o).price(book);
  REQUIRE(run.results.size() == 2);
  CHECK(run.results[0].greeks);
  CHECK(!run.results[1].greeks);
  CHECK(run.summary.without_greeks == 1);
}

TEST_CASE("--greeks output: the contract's columns, per-asset lists, empty cells for products without Greeks")
{
  auto const market = nine_asset_market();
  portfolio book;
  book.trades = {make_trade("vanilla", product_kind::vanilla, option_type::call, "A", 100, 1),
                 make_trade("basket", product_kind::basket, option_type::call, "A", 75, 1),
                 make_trade("wide", product_kind::basket, option_type::call, "A", 20, 1)};
  book.trades[1].underlyings = {"A", "B"};
  book.trades[2].underlyings = {"A", "B", "N0", "N1", "N2", "N3", "N4", "N5", "N6"};
  engine_options o;
  o.backend = backend_choice::cpu;
  o.paths = 2'000;
  o.greeks = true;
  auto const run = engine(market, o).price(book);
  CHECK(run.summary.greeks);
  CHECK(run.summary.without_greeks == 1);
  std::ostringstream csv;
  write_results_csv(csv, run);
  std::string const text = csv.str();
  CHECK(text.rfind("id,status,price,std_error,ci_low,ci_high,paths,delta,gamma,vega,theta,rho,message\n", 0) == 0);
  auto const& basket = *run.results[1].greeks;
  REQUIRE(basket.deltas.size() == 2);
  CHECK(text.find("," + format_double(basket.deltas[0].value) + ";" + format_double(basket.deltas[1].value) + ",") !=
        std::string::npos);  // per asset, ';'-separated, in the trade's order
  CHECK(text.find("\nwide,ok,") != std::string::npos);
  CHECK(text.find(",2000,,,,,,\n") != std::string::npos);  // the nine-asset basket's empty Greek cells
  std::ostringstream json;
  write_results_json(json, run);
  auto const doc = nlohmann::json::parse(json.str());
  auto const& rows = doc["results"];
  CHECK(rows[0]["delta"].get<double>() == run.results[0].greeks->delta.value);
  CHECK(rows[0]["gamma_std_error"].get<double>() == run.results[0].greeks->gamma.std_error);
  CHECK(rows[0]["greek_method"] == "pathwise");
  CHECK(rows[1]["delta"].size() == 2);
  CHECK(rows[1]["vega_std_error"][1].get<double>() == basket.vegas[1].std_error);
  CHECK(rows[1]["cross_gamma"][0]["value"].get<double>() == basket.cross_gammas[0].value);
  CHECK(rows[1]["correlation_vega"].get<double>() == basket.correlation_vega.value);
  CHECK(rows[2]["delta"].is_null());
}

TEST_CASE("--greeks on the two-phase route is refused with a reason")
{
  engine_options o;
  o.backend = backend_choice::cpu;
  o.greeks = true;
  o.route = kernel_route::two_phase;
  CHECK_THROWS_WITH(engine(test_market(), o), Catch::Contains("fused route"));
}

// ---- Asians -------------------------------------------------------------------------------

namespace {

// A flat market for bump-and-reprice references.
market_data flat_market(double spot, double vol, double rate, double dividend = 0.02)
{
  return parse_market(
      "{\"rate\": " + std::to_string(rate) + ", \"assets\": {\"X\": {\"spot\": " + std::to_string(spot) +
          ", \"dividend_yield\": " + std::to_string(dividend) + ", \"vol\": " + std::to_string(vol) + "}}}",
      "flat");
}

trade asian_trade(std::string id, option_type type, averaging_kind avg, strike_kind strike, std::int64_t fixings)
{
  trade t = make_trade(std::move(id), product_kind::asian, type, "X", 100, 1.0);
  t.averaging = avg;
  t.strike_type = strike;
  if (strike == strike_kind::floating) t.strike.reset();
  t.fixings = fixings;
  return t;
}

// The geometric Asian's closed form, and its derivatives by central differences in double.
struct geometric_reference {
  black_scholes::sensitivities exact;
  double gamma_bump_bias;  // of the engine's gamma: a +-0.5% difference of the pathwise delta
};

geometric_reference geometric_greeks(const trade& t, double spot, double vol, double rate)
{
  auto price = [&](double s, double v, double r, double shift) {
    auto const m = flat_market(s, v, r);
    std::vector<double> fix;
    for (std::int64_t i = 1; i <= *t.fixings; ++i)
      fix.push_back(t.maturity * static_cast<double>(i) / static_cast<double>(*t.fixings) - shift);
    return geometric_asian_price(m, m.assets()[0], fix, t.maturity - shift, t.strike.value_or(0.0),
                                 t.type == option_type::call, t.strike_type == strike_kind::floating);
  };
  double const h = 1e-4;
  auto delta_at = [&](double s) {
    return (price(s + h * spot, vol, rate, 0) - price(s - h * spot, vol, rate, 0)) / (2 * h * spot);
  };
  geometric_reference g{};
  g.exact.price = price(spot, vol, rate, 0);
  g.exact.delta = delta_at(spot);
  double const gh = 1e-3;
  g.exact.gamma = (delta_at(spot * (1 + gh)) - delta_at(spot * (1 - gh))) / (2 * gh * spot);
  double const bumped = (delta_at(spot * 1.005) - delta_at(spot * 0.995)) / (0.01 * spot);
  g.gamma_bump_bias = std::abs(bumped - g.exact.gamma);
  g.exact.vega = (price(spot, vol + h, rate, 0) - price(spot, vol - h, rate, 0)) / (2 * h);
  g.exact.rho = (price(spot, vol, rate + h, 0) - price(spot, vol, rate - h, 0)) / (2 * h);
  g.exact.theta = (price(spot, vol, rate, h) - price(spot, vol, rate, -h)) / (2 * h);
  return g;
}

engine asian_engine(const market_data& m, std::int64_t paths, bool greeks = true,
                    path_precision precision = path_precision::float32)
{
  engine_options o;
  o.backend = backend_choice::cpu;
  o.precision = precision;
  o.paths = paths;
  o.greeks = greeks;
  return engine(m, o);
}

}  // namespace

TEST_CASE("CPU Asian Greeks: geometric Asians agree with the closed form's derivatives")
{
  // The estimators are pathwise (unbiased) except gamma, whose +-0.5% difference has a bias the
  // closed form gives exactly; the allowance is that bias plus price_tolerance's float term.
  portfolio book;
  book.trades = {asian_trade("geo-call", option_type::call, averaging_kind::geometric, strike_kind::fixed, 12),
                 asian_trade("geo-put", option_type::put, averaging_kind::geometric, strike_kind::fixed, 24),
                 asian_trade("geo-float-call", option_type::call, averaging_kind::geometric, strike_kind::floating, 12),
                 asian_trade("geo-float-put", option_type::put, averaging_kind::geometric, strike_kind::floating, 6)};
  auto const market = flat_market(100, 0.25, 0.04);
  auto const run = asian_engine(market, 400'000).price(book);
  for (std::size_t i = 0; i < book.trades.size(); ++i) {
    auto const& r = run.results[i];
    REQUIRE(r.status == trade_status::ok);
    REQUIRE(r.greeks);
    CHECK(r.greeks->method == greek_method::pathwise_bumped_gamma);
    auto const ref = geometric_greeks(book.trades[i], 100, 0.25, 0.04);
    std::tuple<const char*, greek_estimate, double, double> const rows[] = {
        {"delta", r.greeks->delta, ref.exact.delta, 0.0},
        {"gamma", r.greeks->gamma, ref.exact.gamma, ref.gamma_bump_bias},
        {"vega", r.greeks->vega, ref.exact.vega, 0.0},
        {"theta", r.greeks->theta, ref.exact.theta, 0.0},
        {"rho", r.greeks->rho, ref.exact.rho, 0.0}};
    for (auto const& [name, mc, expected, bias] : rows) {
      INFO(r.id << " " << name << ": mc " << mc.value << " +- " << mc.std_error << ", closed form " << expected
                << " (gamma bump bias " << bias << ")");
      CHECK(std::abs(mc.value - expected) <= price_tolerance(mc.std_error, expected) + bias);
    }
  }
}

TEST_CASE("CPU Asian Greeks: arithmetic Asians agree with finite differences of the engine's own prices")
{
  // Central differences of prices with common random numbers (the same seed) at 400,000 paths.
  // Their own bias (bump^2 terms) and noise are bounded by the stated 0.5% relative allowance
  // (gamma: 3%, a second difference of noisy prices) on top of 4 std errors.
  portfolio book;
  book.trades = {
      asian_trade("arith-call", option_type::call, averaging_kind::arithmetic, strike_kind::fixed, 24),
      asian_trade("arith-float-put", option_type::put, averaging_kind::arithmetic, strike_kind::floating, 24)};
  double const s = 100;
  double const vol = 0.25;
  double const r = 0.04;
  std::int64_t const paths = 400'000;
  auto const run = asian_engine(flat_market(s, vol, r), paths).price(book);
  auto price = [&](double spot, double v, double rate, double shift) {
    auto b = book;
    for (auto& t : b.trades) {
      t.fixing_times.clear();
      for (int i = 1; i <= 24; ++i) t.fixing_times.push_back(t.maturity * i / 24.0 - shift);
      t.maturity -= shift;
      t.fixings.reset();
    }
    return asian_engine(flat_market(spot, v, rate), paths, false).price(b);
  };
  double const hs = 0.01 * s;
  auto const up = price(s + hs, vol, r, 0);
  auto const mid = price(s, vol, r, 0);
  auto const down = price(s - hs, vol, r, 0);
  auto const vol_up = price(s, vol + 1e-3, r, 0);
  auto const vol_down = price(s, vol - 1e-3, r, 0);
  auto const rate_up = price(s, vol, r + 1e-4, 0);
  auto const rate_down = price(s, vol, r - 1e-4, 0);
  auto const later = price(s, vol, r, 1e-3);
  auto const earlier = price(s, vol, r, -1e-3);
  for (std::size_t i = 0; i < book.trades.size(); ++i) {
    auto const& g = *run.results[i].greeks;
    auto fd = [&](const pricing_run& a, const pricing_run& b, double width) {
      return (a.results[i].price - b.results[i].price) / width;
    };
    std::tuple<const char*, greek_estimate, double, double> const rows[] = {
        {"delta", g.delta, fd(up, down, 2 * hs), 0.005},
        {"gamma", g.gamma, (up.results[i].price - 2 * mid.results[i].price + down.results[i].price) / (hs * hs), 0.03},
        {"vega", g.vega, fd(vol_up, vol_down, 2e-3), 0.005},
        {"theta", g.theta, fd(later, earlier, 2e-3), 0.005},
        {"rho", g.rho, fd(rate_up, rate_down, 2e-4), 0.005}};
    for (auto const& [name, mc, expected, rel] : rows) {
      INFO(book.trades[i].id << " " << name << ": in pass " << mc.value << " +- " << mc.std_error
                             << ", finite difference " << expected);
      CHECK(std::abs(mc.value - expected) <= 4.0 * mc.std_error + rel * std::abs(expected) + 1e-6);
    }
  }
}

TEST_CASE("asking for Greeks leaves Asian and other path prices' bits unchanged")
{
  portfolio book;
  book.trades = {asian_trade("arith", option_type::call, averaging_kind::arithmetic, strike_kind::fixed, 12),
                 asian_trade("geo-float", option_type::put, averaging_kind::geometric, strike_kind::floating, 7)};
  trade barrier = make_trade("barrier", product_kind::barrier, option_type::call, "X", 100, 1.0);
  barrier.barrier = 130;
  barrier.barrier_type = barrier_kind::up_out;
  book.trades.push_back(barrier);
  auto const market = flat_market(100, 0.2, 0.03);
  auto const with = asian_engine(market, 20'001).price(book);
  auto const without = asian_engine(market, 20'001, false).price(book);
  for (std::size_t i = 0; i < book.trades.size(); ++i) {
    INFO(book.trades[i].id);
    REQUIRE(with.results[i].status == trade_status::ok);
    CHECK(same_bits(with.results[i].price, without.results[i].price));
    CHECK(same_bits(with.results[i].std_error, without.results[i].std_error));
  }
  for (auto const& r : with.results) CHECK(r.greeks.has_value());
  CHECK(with.results[2].greeks->method == greek_method::central_bumps);
  CHECK(with.summary.without_greeks == 0);
}

TEST_CASE("CPU barrier, touch and lookback Greeks agree with finite differences of the engine's own prices", "[heavy]")
{
  // The scenario lanes are central differences with common random numbers inside the pass;
  // repricing bumped markets with the same seed must give the same numbers up to the
  // scenarios' first-order vol steps and float rounding: 4 std errors + 0.5% (gamma 3%).
  auto make = [](std::string id, product_kind p, option_type type) {
    return make_trade(std::move(id), p, type, "X", 100, 1.0);
  };
  portfolio book;
  trade up_out = make("up-out", product_kind::barrier, option_type::call);
  up_out.barrier = 130;
  up_out.barrier_type = barrier_kind::up_out;
  trade down_in = make("down-in-discrete", product_kind::barrier, option_type::put);
  down_in.barrier = 85;
  down_in.barrier_type = barrier_kind::down_in;
  down_in.monitoring = monitoring_kind::discrete;
  down_in.fixings = 12;
  trade touch = make("one-touch", product_kind::touch, option_type::one_touch);
  touch.strike.reset();
  touch.barrier = 120;
  touch.barrier_type = barrier_kind::up;
  touch.payout = 10;
  trade lookback = make("seasoned-lookback", product_kind::lookback, option_type::call);
  lookback.running_extreme = 104;
  book.trades = {up_out, down_in, touch, lookback};
  for (auto& t : book.trades) t.steps = 32;
  double const s = 100;
  double const vol = 0.2;
  double const r = 0.05;
  std::int64_t const paths = 200'000;
  auto const run = asian_engine(flat_market(s, vol, r), paths).price(book);
  auto price = [&](double spot, double v, double rate) {
    return asian_engine(flat_market(spot, v, rate), paths, false).price(book);
  };
  auto const up = price(s * 1.01, vol, r);
  auto const mid = price(s, vol, r);
  auto const down = price(s * 0.99, vol, r);
  auto const vol_up = price(s, vol + 0.01, r);
  auto const vol_down = price(s, vol - 0.01, r);
  auto const rate_up = price(s, vol, r + 1e-3);
  auto const rate_down = price(s, vol, r - 1e-3);
  for (std::size_t i = 0; i < book.trades.size(); ++i) {
    INFO(book.trades[i].id << ": " << run.results[i].message);
    REQUIRE(run.results[i].status == trade_status::ok);
    auto const& g = *run.results[i].greeks;
    CHECK(g.method == greek_method::central_bumps);
    auto fd = [&](const pricing_run& a, const pricing_run& b, double width) {
      return (a.results[i].price - b.results[i].price) / width;
    };
    double const h = 0.01 * s;
    std::tuple<const char*, greek_estimate, double, double> const rows[] = {
        {"delta", g.delta, fd(up, down, 2 * h), 0.005},
        {"gamma", g.gamma, (up.results[i].price - 2 * mid.results[i].price + down.results[i].price) / (h * h), 0.03},
        {"vega", g.vega, fd(vol_up, vol_down, 0.02), 0.005},
        {"rho", g.rho, fd(rate_up, rate_down, 2e-3), 0.005}};
    for (auto const& [name, mc, expected, rel] : rows) {
      INFO(name << ": in pass " << mc.value << " +- " << mc.std_error << ", repriced " << expected);
      CHECK(std::abs(mc.value - expected) <= 4.0 * mc.std_error + rel * std::abs(expected) + 1e-6);
    }
    CHECK(std::isfinite(g.theta.value));
    CHECK(g.theta.std_error > 0.0);
  }
}

// ---- Multi-asset trades -------------------------------------------------------------------

namespace {

market_data two_asset_market(double spot_a, double spot_b, double vol_b, double corr, double rate)
{
  auto num = [](double x) { return std::to_string(x); };
  return parse_market("{\"rate\": " + num(rate) + ", \"assets\": {\"A\": {\"spot\": " + num(spot_a) +
                          ", \"dividend_yield\": 0.02, \"vol\": 0.25}, \"B\": {\"spot\": " + num(spot_b) +
                          ", \"dividend_yield\": 0.01, \"vol\": " + num(vol_b) +
                          "}}, \"correlation\": {\"A,B\": " + num(corr) + "}}",
                      "two-asset");
}

trade multi(std::string id, product_kind p, option_type type, double strike, std::vector<double> weights = {})
{
  trade t = make_trade(std::move(id), p, type, "A", strike, 1.0);
  t.underlyings = {"A", "B"};
  t.weights = std::move(weights);
  return t;
}

}  // namespace

TEST_CASE("CPU multi-asset Greeks: a one-asset basket has the vanilla's Black-Scholes Greeks, in float and double")
{
  // Central differences of scenarios (spot +-1%, vol +-0.01, rate +-1e-3, time +-1 day): their
  // bias is a fraction of a percent here, the stated allowance 0.5%.
  auto const market = flat_market(100, 0.2, 0.05);
  portfolio book;
  trade one = make_trade("one-asset-basket", product_kind::basket, option_type::call, "X", 95, 1.0);
  book.trades = {one};
  auto const precision = GENERATE(path_precision::float32, path_precision::float64);
  auto const run = asian_engine(market, 1'000'000, true, precision).price(book);
  REQUIRE(run.results[0].greeks);
  auto const& g = *run.results[0].greeks;
  REQUIRE(g.deltas.size() == 1);
  auto const ref = black_scholes::greeks(black_scholes::european_kind::call, {100, 95, 1.0, 0.05, 0.02, 0.2});
  std::tuple<const char*, greek_estimate, double> const rows[] = {{"delta", g.deltas[0], ref.delta},
                                                                  {"gamma", g.gammas[0], ref.gamma},
                                                                  {"vega", g.vegas[0], ref.vega},
                                                                  {"theta", g.theta, ref.theta},
                                                                  {"rho", g.rho, ref.rho}};
  for (auto const& [name, mc, expected] : rows) {
    INFO(name << ": mc " << mc.value << " +- " << mc.std_error << ", Black-Scholes " << expected);
    CHECK(std::abs(mc.value - expected) <= 4.0 * mc.std_error + 0.005 * std::abs(expected));
  }
  CHECK(g.cross_gammas.empty());
}

TEST_CASE("CPU multi-asset Greeks: put-call parity in a basket's deltas")
{
  // C - P = e^{-rT} (sum w_i F_i - K), so delta_i(C) - delta_i(P) = w_i e^{-q_i T}.
  auto const market = two_asset_market(100, 50, 0.3, 0.4, 0.05);
  portfolio book;
  book.trades = {multi("call", product_kind::basket, option_type::call, 80, {0.6, 0.8}),
                 multi("put", product_kind::basket, option_type::put, 80, {0.6, 0.8})};
  auto const run = asian_engine(market, 400'000).price(book);
  auto const& c = *run.results[0].greeks;
  auto const& p = *run.results[1].greeks;
  double const expected[2] = {0.6 * std::exp(-0.02), 0.8 * std::exp(-0.01)};
  for (int i = 0; i < 2; ++i) {
    double const diff = c.deltas[i].value - p.deltas[i].value;
    double const se = std::hypot(c.deltas[i].std_error, p.deltas[i].std_error);
    INFO("asset " << i << ": delta(C) - delta(P) = " << diff << " +- " << se << ", parity " << expected[i]);
    CHECK(std::abs(diff - expected[i]) <= 4.0 * se + 1e-4);
  }
}

TEST_CASE("CPU multi-asset Greeks agree with repricing bumped markets with the same seed, in float and double")
{
  portfolio book;
  book.trades = {multi("best-of", product_kind::best_of, option_type::call, 100, {1.0, 2.0}),
                 multi("spread", product_kind::spread, option_type::call, 45)};
  std::int64_t const paths = 200'000;
  auto const precision = GENERATE(path_precision::float32, path_precision::float64);
  auto price = [&](double a, double b, double vol_b, double corr, double rate) {
    return asian_engine(two_asset_market(a, b, vol_b, corr, rate), paths, false, precision).price(book);
  };
  auto const run = asian_engine(two_asset_market(100, 50, 0.3, 0.4, 0.05), paths, true, precision).price(book);
  auto const a_up = price(101, 50, 0.3, 0.4, 0.05);
  auto const a_down = price(99, 50, 0.3, 0.4, 0.05);
  auto const b_up = price(100, 50.5, 0.3, 0.4, 0.05);
  auto const b_down = price(100, 49.5, 0.3, 0.4, 0.05);
  auto const corner_pp = price(101, 50.5, 0.3, 0.4, 0.05);
  auto const corner_pm = price(101, 49.5, 0.3, 0.4, 0.05);
  auto const corner_mp = price(99, 50.5, 0.3, 0.4, 0.05);
  auto const corner_mm = price(99, 49.5, 0.3, 0.4, 0.05);
  auto const vol_up = price(100, 50, 0.31, 0.4, 0.05);
  auto const vol_down = price(100, 50, 0.29, 0.4, 0.05);
  auto const corr_up = price(100, 50, 0.3, 0.41, 0.05);
  auto const corr_down = price(100, 50, 0.3, 0.39, 0.05);
  auto const rate_up = price(100, 50, 0.3, 0.4, 0.051);
  auto const rate_down = price(100, 50, 0.3, 0.4, 0.049);
  auto const plain = price(100, 50, 0.3, 0.4, 0.05);
  for (std::size_t i = 0; i < book.trades.size(); ++i) {
    CHECK(same_bits(plain.results[i].price, run.results[i].price));  // Greeks leave the price's bits
    CHECK(same_bits(plain.results[i].std_error, run.results[i].std_error));
    auto const& g = *run.results[i].greeks;
    auto p = [&](const pricing_run& r) { return r.results[i].price; };
    std::tuple<const char*, greek_estimate, double> const rows[] = {
        {"delta A", g.deltas[0], (p(a_up) - p(a_down)) / 2.0},
        {"delta B", g.deltas[1], (p(b_up) - p(b_down)) / 1.0},
        {"gamma B", g.gammas[1], (p(b_up) - 2 * run.results[i].price + p(b_down)) / 0.25},
        {"cross gamma", g.cross_gammas[0],
         (p(corner_pp) - p(corner_pm) - p(corner_mp) + p(corner_mm)) / (4 * 1.0 * 0.5)},
        {"vega B", g.vegas[1], (p(vol_up) - p(vol_down)) / 0.02},
        {"correlation vega", g.correlation_vega, (p(corr_up) - p(corr_down)) / 0.02},
        {"rho", g.rho, (p(rate_up) - p(rate_down)) / 2e-3}};
    for (auto const& [name, mc, expected] : rows) {
      INFO(book.trades[i].id << " " << name << ": in pass " << mc.value << " +- " << mc.std_error << ", repriced "
                             << expected);
      CHECK(std::abs(mc.value - expected) <= 4.0 * mc.std_error + 0.005 * std::abs(expected) + 1e-6);
    }
  }
}

// ---- Heston --------------------------------------------------------------------------------

TEST_CASE("CPU Heston Greeks agree with derivatives of the semi-analytic price", "[heavy]")
{
  // Scenario lanes (spot +-1%, vol level +-0.01, rate +-1e-3, time +-1 day) against central
  // differences of Heston's semi-analytic call in double. Allowance: 4 std errors plus 1% for
  // the QE discretisation (64 steps) and the bumps' own bias. Model vega is the response to
  // sqrt(v0) and sqrt(theta) moving together.
  testing::heston_case const base{100, 100, 1.0, 0.03, 0.01, 0.04, 2.0, 0.04, 0.3, -0.6};
  auto const market = parse_market(R"({"rate": 0.03, "assets": {"H": {"spot": 100, "dividend_yield": 0.01,
      "model": "heston", "heston": {"v0": 0.04, "kappa": 2.0, "theta": 0.04, "xi": 0.3, "rho": -0.6}}}})",
                                   "heston-greeks");
  portfolio book;
  book.trades = {make_trade("heston-call", product_kind::vanilla, option_type::call, "H", 100, 1.0)};
  book.trades[0].steps = 64;
  engine_options o;
  o.backend = backend_choice::cpu;
  o.paths = 400'000;
  o.greeks = true;
  auto const run = engine(market, o).price(book);
  o.greeks = false;
  auto const plain = engine(market, o).price(book);
  CHECK(same_bits(run.results[0].price, plain.results[0].price));
  REQUIRE(run.results[0].greeks);
  auto const& g = *run.results[0].greeks;
  CHECK(g.method == greek_method::central_bumps);
  auto const [delta, gamma, vega, theta, rho] = testing::heston_call_greeks_of(base);
  std::tuple<const char*, greek_estimate, double> const rows[] = {{"delta", g.delta, delta},
                                                                  {"gamma", g.gamma, gamma},
                                                                  {"vega", g.vega, vega},
                                                                  {"theta", g.theta, theta},
                                                                  {"rho", g.rho, rho}};
  for (auto const& [name, mc, expected] : rows) {
    INFO(name << ": mc " << mc.value << " +- " << mc.std_error << ", semi-analytic " << expected);
    CHECK(std::abs(mc.value - expected) <= 4.0 * mc.std_error + 0.01 * std::abs(expected));
  }
}
