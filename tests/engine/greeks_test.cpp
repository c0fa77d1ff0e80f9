// Greeks in the same pass as the price (CPU backend; the GPU suite runs the same checks):
// Black-Scholes' analytic Greeks, unchanged prices, reproducible bits, the statistics and the
// output columns.
#include "catch.hpp"
#include "greek_checks.hpp"
#include "greek_statistics.hpp"
#include "mcprice/engine.hpp"
#include "mcprice/input_error.hpp"
#include "mcprice/results_writer.hpp"
#include "pricing_cases.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstring>
#include <sstream>

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
  for (auto [x, y] : {std::pair{a.delta, b.delta}, {a.gamma, b.gamma}, {a.vega, b.vega}, {a.theta, b.theta}, {a.rho, b.rho}}) {
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
  for (K kind : {K::call, K::put, K::cash_digital_call, K::cash_digital_put, K::asset_digital_call, K::asset_digital_put}) {
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
    double const theta = -(price([&](auto& i) { i.maturity += h; }) - price([&](auto& i) { i.maturity -= h; })) / (2 * h);
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
  SECTION("antithetic pairs") { check_greeks_against_black_scholes(book, test_market(), greek_engine(400'000).price(book)); }
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

TEST_CASE("--greeks output: the contract's columns, empty cells for products without Greeks")
{
  auto book = reference_book();
  book.trades.resize(2);
  trade asian = make_trade("asian", product_kind::asian, option_type::call, "FLAT", 100, 1);
  asian.fixings = 12;
  book.trades.push_back(asian);
  auto const run = greek_engine(2'000).price(book);
  CHECK(run.summary.greeks);
  CHECK(run.summary.without_greeks == 1);
  std::ostringstream csv;
  write_results_csv(csv, run);
  std::string const text = csv.str();
  CHECK(text.rfind("id,status,price,std_error,ci_low,ci_high,paths,delta,gamma,vega,theta,rho,message\n", 0) == 0);
  CHECK(text.find("\nasian,ok,") != std::string::npos);
  CHECK(text.find(",2000,,,,,,\n") != std::string::npos);  // the asian's empty Greek cells
  std::ostringstream json;
  write_results_json(json, run);
  auto const doc = nlohmann::json::parse(json.str());
  CHECK(doc["results"][0]["delta"].get<double>() == run.results[0].greeks->delta.value);
  CHECK(doc["results"][0]["gamma_std_error"].get<double>() == run.results[0].greeks->gamma.std_error);
  CHECK(doc["results"][0]["greek_method"] == "pathwise");
  CHECK(doc["results"][2]["delta"].is_null());
}

TEST_CASE("--greeks on the two-phase route is refused with a reason")
{
  engine_options o;
  o.backend = backend_choice::cpu;
  o.greeks = true;
  o.route = kernel_route::two_phase;
  CHECK_THROWS_WITH(engine(test_market(), o), Catch::Contains("fused route"));
}
