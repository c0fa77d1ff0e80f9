// Heston (QE scheme) on the CPU backend against the semi-analytic price and exact identities.
#include "catch.hpp"
#include "cpu_pricing.hpp"
#include "heston_reference.hpp"
#include "mcprice/black_scholes.hpp"
#include "mcprice/engine.hpp"
#include "mcprice/kernels/models/heston_path.hpp"
#include "mcprice/market_reader.hpp"

#include <cmath>
#include <random>
#include <sstream>
#include <utility>

using namespace mcprice;
using namespace mcprice::testing;

namespace {

pricing_run price(const market_data& m, std::vector<trade> trades, std::int64_t paths, std::int64_t steps)
{
  return price_on_cpu(m, std::move(trades), paths, steps);
}

// QE with the martingale correction: a bias of a few 1e-3 at 100 steps on these cases.
constexpr double qe_allowance = 0.01;

}  // namespace

TEST_CASE("the martingale correction's ln(1 + w) is log1p to float rounding on both sides of its series")
{
  double worst = 0.0;
  for (int i = -4000; i <= 4000; ++i) {
    // Dense around 0 and the series' edge at 1/32, then out to -0.99 and 10.
    float const w = static_cast<float>(i < -2000  ? -0.99 * (-i - 2000) / 2000.0
                                       : i > 2000 ? 10.0 * (i - 2000) / 2000.0
                                                  : 0.0625 * i / 2000.0);
    double const exact = std::log1p(static_cast<double>(w));
    if (exact == 0.0) {
      CHECK(small_log1p(w) == 0.0F);
      continue;
    }
    worst = std::max(worst, std::abs(small_log1p(w) - exact) / std::abs(exact));
  }
  INFO("worst relative error " << worst);
  CHECK(worst < 4e-7);
}

TEST_CASE("the semi-analytic Heston reference reproduces the published benchmark")
{
  // The PyTorch peers' case; its reference 5.785155450 is the literature value.
  heston_case const c{100, 100, 1, 0, 0, 0.0175, 1.5768, 0.0398, 0.5751, -0.5711};
  CHECK(std::abs(heston_call(c) - 5.785155450) < 1e-7);
}

TEST_CASE("Heston QE prices match the semi-analytic value within 4 std errors plus the QE allowance", "[heavy]")
{
  heston_case const cases[] = {{100, 100, 1, 0, 0, 0.0175, 1.5768, 0.0398, 0.5751, -0.5711},
                               {100, 110, 2, 0.04, 0.01, 0.09, 0.8, 0.06, 1.0, -0.8},
                               {50, 45, 0.5, 0.02, 0.0, 0.04, 3.0, 0.05, 0.3, 0.2}};
  for (auto const& c : cases) {
    auto const m = heston_market(c);
    auto const run = price(m,
                           {heston_trade_of("call", product_kind::vanilla, option_type::call, c.k, c.t),
                            heston_trade_of("put", product_kind::vanilla, option_type::put, c.k, c.t)},
                           400'000, 100);
    double const refs[2] = {heston_call(c), heston_put(c)};
    for (int i = 0; i < 2; ++i) {
      auto const& r = run.results[static_cast<std::size_t>(i)];
      INFO(r.id << " K " << c.k << " T " << c.t << ": mc " << r.price << " +- " << r.std_error << ", reference "
                << refs[i] << " " << r.message);
      REQUIRE(r.status == trade_status::ok);
      CHECK(std::abs(r.price - refs[i]) <= 4.0 * r.std_error + qe_allowance);
    }
  }
}

TEST_CASE("Heston with no vol of vol and v0 = theta is Black-Scholes at vol sqrt(theta)")
{
  heston_case const c{100, 95, 1, 0.03, 0.01, 0.04, 2.0, 0.04, 0.0, 0.0};
  auto const run =
      price(heston_market(c), {heston_trade_of("bs", product_kind::vanilla, option_type::call, 95, 1)}, 200'000, 50);
  double const df = std::exp(-0.03);
  double const ref = black_scholes::call({100 * std::exp(-0.01) / df, 95, 0.04, df});
  auto const& r = run.results[0];
  INFO("mc " << r.price << " +- " << r.std_error << ", reference " << ref);
  CHECK(std::abs(r.price - ref) <= 4.0 * r.std_error + 1e-4);
}

TEST_CASE("Heston barriers: knock-in plus knock-out is the vanilla on the same paths")
{
  heston_case const c{100, 100, 1, 0.02, 0.0, 0.04, 1.5, 0.04, 0.6, -0.7};
  auto const m = heston_market(c);
  trade ko = heston_trade_of("hb", product_kind::barrier, option_type::call, 100, 1);
  ko.barrier = 85.0;
  ko.barrier_type = barrier_kind::down_out;
  trade ki = ko;
  ki.barrier_type = barrier_kind::down_in;
  auto const out = price(m, {ko}, 100'000, 64);
  auto const in = price(m, {ki}, 100'000, 64);
  double const sum = out.results[0].price + in.results[0].price;
  double const ref = heston_call(c);
  CHECK(std::abs(sum - ref) <= 4.0 * (out.results[0].std_error + in.results[0].std_error) + qe_allowance);
  CHECK(out.results[0].price < ref);
}

namespace {

// Full-truncation Euler (Lord, Koekkoek and van Dijk 2010) in log spot: the usual quick scheme,
// as the comparison for QE. Returns the call price and its std error.
std::pair<double, double> full_truncation_euler(const heston_case& c, int steps, int paths)
{
  std::mt19937_64 gen(99);
  std::normal_distribution<double> n01;
  double const dt = c.t / steps;
  double sum = 0.0;
  double sum_sq = 0.0;
  for (int p = 0; p < paths; ++p) {
    double x = std::log(c.s);
    double v = c.v0;
    for (int k = 0; k < steps; ++k) {
      double const z1 = n01(gen);
      double const z2 = c.rho * z1 + std::sqrt(1.0 - c.rho * c.rho) * n01(gen);
      double const vp = std::max(v, 0.0);
      x += (c.r - c.q - 0.5 * vp) * dt + std::sqrt(vp * dt) * z1;
      v += c.kappa * (c.theta - vp) * dt + c.xi * std::sqrt(vp * dt) * z2;
    }
    double const payoff = std::max(std::exp(x) - c.k, 0.0) * std::exp(-c.r * c.t);
    sum += payoff;
    sum_sq += payoff * payoff;
  }
  double const mean = sum / paths;
  return {mean, std::sqrt((sum_sq / paths - mean * mean) / paths)};
}

}  // namespace

TEST_CASE("at 50 steps the QE bias is well below full-truncation Euler's on a high vol-of-vol case", "[heavy]")
{
  heston_case const c{100, 100, 1, 0, 0, 0.04, 0.5, 0.04, 1.0, -0.9};
  double const ref = heston_call(c);
  auto const qe =
      price(heston_market(c), {heston_trade_of("qe", product_kind::vanilla, option_type::call, 100, 1)}, 1'000'000, 50);
  auto const [euler, euler_se] = full_truncation_euler(c, 50, 400'000);
  double const qe_bias = std::abs(qe.results[0].price - ref);
  double const euler_bias = std::abs(euler - ref);
  INFO("reference " << ref << ", QE " << qe.results[0].price << " +- " << qe.results[0].std_error << ", Euler " << euler
                    << " +- " << euler_se);
  CHECK(euler_bias > 4.0 * euler_se);                                   // Euler's bias is visible
  CHECK(qe_bias <= 4.0 * qe.results[0].std_error + 0.25 * euler_bias);  // QE's is far smaller
}

TEST_CASE("Heston QE at the parameter edges matches the semi-analytic value", "[heavy]")
{
  for (auto const& c : heston_edge_cases()) {
    auto const run = price(heston_market(c),
                           {heston_trade_of("call", product_kind::vanilla, option_type::call, c.k, c.t)}, 400'000, 100);
    double const ref = heston_call(c);
    auto const& r = run.results[0];
    INFO("kappa " << c.kappa << " theta " << c.theta << " v0 " << c.v0 << " xi " << c.xi << " rho " << c.rho << " T "
                  << c.t << ": mc " << r.price << " +- " << r.std_error << ", reference " << ref << " " << r.message);
    REQUIRE(r.status == trade_status::ok);
    CHECK(std::abs(r.price - ref) <= 4.0 * r.std_error + qe_allowance);
  }
}
