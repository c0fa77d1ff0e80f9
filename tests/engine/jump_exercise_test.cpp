// Jumps on the early-exercise walk (CPU backend): Bermudan and American puts on a Merton asset
// against backward induction on a fine grid of the log spot with Merton's transition density,
// their Greeks against the grid's differences, a one-date Bermudan and a Bates one against the
// closed forms, and exchange options (a spread struck at 0) between jump assets against
// Margrabe's formula summed over the jump counts.
#include "catch.hpp"
#include "heston_reference.hpp"
#include "mcprice/black_scholes.hpp"
#include "mcprice/engine.hpp"
#include "mcprice/market_reader.hpp"
#include "trade_on.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

using namespace mcprice;
using namespace mcprice::testing;

namespace {

struct merton_asset {
  double s, q, sigma, lambda, mean, vol;
};

double kappa_of(const merton_asset& a) { return std::expm1(a.mean + 0.5 * a.vol * a.vol); }

// Poisson weights of the jump counts 0..n-1 with mean m.
std::vector<double> poisson_weights(double m, int n)
{
  std::vector<double> w(static_cast<std::size_t>(n));
  double p = std::exp(-m);
  for (int k = 0; k < n; ++k) {
    if (k > 0) p *= m / k;
    w[static_cast<std::size_t>(k)] = p;
  }
  return w;
}

// A put exercisable at `dates` equally spaced dates ending at t (not today), by backward
// induction over a grid of ln S: each date's continuation is the next date's value integrated
// against the step's density, a Poisson mixture of normals (trapezoid rule; the density depends
// on the distance only, so it is tabulated once).
double bermudan_put_by_grid(const merton_asset& a, double r, double k, double t, int dates)
{
  double const dt = t / dates;
  double const drift = (r - a.q - a.lambda * kappa_of(a) - 0.5 * a.sigma * a.sigma) * dt;
  double const spread = std::sqrt((a.sigma * a.sigma + a.lambda * (a.mean * a.mean + a.vol * a.vol)) * t);
  double const half = 10.0 * spread + std::abs(drift) * dates;
  int const n = 2401;
  double const h = 2.0 * half / (n - 1);
  double const x0 = std::log(a.s);
  auto const weights = poisson_weights(a.lambda * dt, 40);
  std::vector<double> density(static_cast<std::size_t>(2 * n - 1));
  for (int d = -(n - 1); d <= n - 1; ++d) {
    double const y = d * h - drift;
    double sum = 0.0;
    for (std::size_t j = 0; j < weights.size(); ++j) {
      double const var = a.sigma * a.sigma * dt + static_cast<double>(j) * a.vol * a.vol;
      double const z = y - static_cast<double>(j) * a.mean;
      sum += weights[j] * std::exp(-0.5 * z * z / var) / std::sqrt(2.0 * M_PI * var);
    }
    density[static_cast<std::size_t>(d + n - 1)] = sum * h;
  }
  double const discount = std::exp(-r * dt);
  auto const x_at = [&](int i) { return x0 - half + i * h; };
  auto const payoff = [&](int i) { return std::max(k - std::exp(x_at(i)), 0.0); };
  // The value at x_i of holding to the next date: the trapezoid rule over the grid.
  auto const continuation = [&](const std::vector<double>& next, int i) {
    double c = 0.0;
    for (int j = 0; j < n; ++j) {
      double const w = j == 0 || j == n - 1 ? 0.5 : 1.0;
      c += w * next[static_cast<std::size_t>(j)] * density[static_cast<std::size_t>(j - i + n - 1)];
    }
    return discount * c;
  };
  std::vector<double> value(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) value[static_cast<std::size_t>(i)] = payoff(i);
  for (int date = dates - 1; date >= 1; --date) {
    std::vector<double> earlier(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) earlier[static_cast<std::size_t>(i)] = std::max(payoff(i), continuation(value, i));
    value.swap(earlier);
  }
  return continuation(value, (n - 1) / 2);
}

std::string jumps_json(const merton_asset& a)
{
  std::ostringstream m;
  m.precision(17);
  m << R"({"spot": )" << a.s << R"(, "dividend_yield": )" << a.q << R"(, "vol": )" << a.sigma
    << R"(, "jumps": {"intensity": )" << a.lambda << R"(, "mean": )" << a.mean << R"(, "vol": )" << a.vol << "}}";
  return m.str();
}

market_data market_of(double r, const merton_asset& a, const merton_asset& b, double rho)
{
  std::ostringstream m;
  m.precision(17);
  m << R"({"rate": )" << r << R"(, "assets": {"J": )" << jumps_json(a) << R"(, "K": )" << jumps_json(b)
    << R"(}, "correlation": {"J,K": )" << rho << "}}";
  return parse_market(m.str(), "jumps");
}

pricing_run price_with(const market_data& m, std::vector<trade> trades, engine_options o)
{
  o.backend = backend_choice::cpu;
  portfolio book;
  book.trades = std::move(trades);
  return engine(m, o).price(book);
}

trade bermudan_put(double k, int dates)
{
  trade x = trade_on("J", "bermudan-" + std::to_string(dates), product_kind::vanilla, option_type::put, k, 1.0);
  x.exercise = exercise_style::bermudan;
  x.exercise_dates = dates;
  return x;
}

void check_near(const trade_result& r, double expected, double allowance)
{
  INFO(r.id << ": price " << r.price << " +- " << r.std_error << ", reference " << expected << " " << r.message);
  REQUIRE(r.status == trade_status::ok);
  CHECK(std::abs(r.price - expected) <= 4.0 * r.std_error + allowance);
}

// Least squares is low-biased (a feasible policy, regressed on a finite basis): the estimate may
// fall short of the optimal value by this allowance, never exceed it by more than its noise.
void check_low_biased(const trade_result& r, double expected, double allowance)
{
  INFO(r.id << ": price " << r.price << " +- " << r.std_error << ", reference " << expected << " " << r.message);
  REQUIRE(r.status == trade_status::ok);
  CHECK(r.price <= expected + 4.0 * r.std_error + 1e-3);
  CHECK(r.price >= expected - 4.0 * r.std_error - allowance);
}

constexpr double rate = 0.05;
const merton_asset crash{100, 0.0, 0.2, 0.5, -0.1, 0.15};
const merton_asset strong{100, 0.02, 0.15, 3.0, -0.2, 0.3};
const merton_asset mild{80, 0.01, 0.25, 1.0, 0.05, 0.05};

engine_options with_paths(std::int64_t paths)
{
  engine_options o;
  o.paths = paths;
  o.steps = 50;
  return o;
}

}  // namespace

TEST_CASE("the grid reference reprices Merton's European put (one date) and exceeds it with more dates")
{
  // Its own check: one date is the European, whose series is closed form.
  for (auto const& a : {crash, strong}) {
    double series = 0.0;
    auto const w = poisson_weights(a.lambda, 60);
    for (std::size_t n = 0; n < w.size(); ++n) {
      double const m = static_cast<double>(n);
      double const forward =
          a.s * std::exp((rate - a.q - a.lambda * kappa_of(a)) + m * a.mean + 0.5 * m * a.vol * a.vol);
      series += w[n] * black_scholes::put({forward, 100, a.sigma * a.sigma + m * a.vol * a.vol, std::exp(-rate)});
    }
    CHECK(std::abs(bermudan_put_by_grid(a, rate, 100, 1.0, 1) - series) <= 1e-5 * series);
    CHECK(bermudan_put_by_grid(a, rate, 100, 1.0, 4) > series + 0.05);
  }
}

TEST_CASE("Bermudan puts on Merton assets: least squares against backward induction on a grid")
{
  for (auto const& a : {crash, strong}) {
    auto const m = market_of(rate, a, mild, 0.3);
    auto const run = price_with(m, {bermudan_put(100, 1), bermudan_put(100, 4), bermudan_put(90, 4)},
                                with_paths(200000));
    // One date: the European, one exact step with its jumps (float rounding only).
    double const european = bermudan_put_by_grid(a, rate, 100, 1.0, 1);
    check_near(run.results[0], european, 2e-4 * european + 2e-4);
    double const at_the_money = bermudan_put_by_grid(a, rate, 100, 1.0, 4);
    check_low_biased(run.results[1], at_the_money, 0.01 * at_the_money);
    double const out_of_the_money = bermudan_put_by_grid(a, rate, 90, 1.0, 4);
    check_low_biased(run.results[2], out_of_the_money, 0.01 * out_of_the_money);
  }
}

TEST_CASE("American puts on Merton assets: least squares over 50 dates against the grid's", "[heavy]")
{
  auto const m = market_of(rate, crash, mild, 0.3);
  trade american = trade_on("J", "american", product_kind::vanilla, option_type::put, 100, 1.0);
  american.exercise = exercise_style::american;
  auto const run = price_with(m, {american}, with_paths(200000));
  double const reference = bermudan_put_by_grid(crash, rate, 100, 1.0, 50);
  check_low_biased(run.results[0], reference, 0.015 * reference);
}

TEST_CASE("Greeks of a Bermudan put on a Merton asset agree with the grid's differences")
{
  auto const m = market_of(rate, crash, mild, 0.3);
  engine_options o = with_paths(200000);
  o.greeks = true;
  auto const run = price_with(m, {bermudan_put(100, 4)}, o);
  REQUIRE(run.results[0].status == trade_status::ok);
  REQUIRE(run.results[0].greeks);
  auto const& g = *run.results[0].greeks;
  auto const grid = [](merton_asset a) { return bermudan_put_by_grid(a, rate, 100, 1.0, 4); };
  merton_asset up = crash;
  merton_asset down = crash;
  up.s += 1.0;
  down.s -= 1.0;
  double const delta = (grid(up) - grid(down)) / 2.0;
  merton_asset vol_up = crash;
  merton_asset vol_down = crash;
  vol_up.sigma += 0.01;
  vol_down.sigma -= 0.01;
  double const vega = (grid(vol_up) - grid(vol_down)) / 0.02;
  INFO("delta " << g.delta.value << " +- " << g.delta.std_error << " vs " << delta << "; vega " << g.vega.value
                << " +- " << g.vega.std_error << " vs " << vega);
  // The policy is held under the bumps (first order): the differences' allowance covers it.
  CHECK(std::abs(g.delta.value - delta) <= 4 * g.delta.std_error + 0.01);
  CHECK(std::abs(g.vega.value - vega) <= 4 * g.vega.std_error + 0.02 * std::abs(vega));
}

TEST_CASE("a Bermudan put on a Merton asset under Sobol points")
{
  auto const m = market_of(rate, strong, mild, 0.3);
  engine_options o = with_paths(1 << 17);
  o.rng = rng_kind::sobol;
  auto const run = price_with(m, {bermudan_put(100, 1), bermudan_put(100, 4)}, o);
  double const european = bermudan_put_by_grid(strong, rate, 100, 1.0, 1);
  check_near(run.results[0], european, 2e-4 * european + 2e-4);
  double const bermudan = bermudan_put_by_grid(strong, rate, 100, 1.0, 4);
  check_low_biased(run.results[1], bermudan, 0.01 * bermudan);
}

TEST_CASE("exchange options between jump assets: Margrabe's formula summed over the jump counts")
{
  // A spread struck at 0 pays (S_J - S_K)+. Given the counts it is Margrabe's exchange option
  // on two log-normal assets whose variances hold their jumps' (independent of the diffusions).
  for (double rho : {-0.4, 0.6}) {
    auto const m = market_of(rate, crash, mild, rho);
    trade exchange = trade_on("J", "exchange", product_kind::spread, option_type::call, 0.0, 1.0);
    exchange.underlyings = {"J", "K"};
    exchange.weights = {1.0, 1.25};
    trade basket = exchange;
    basket.id = "basket";
    basket.product = product_kind::basket;
    basket.strike = 90.0;
    auto const run = price_with(m, {exchange, basket}, with_paths(400000));
    auto const wj = poisson_weights(crash.lambda, 30);
    auto const wk = poisson_weights(mild.lambda, 30);
    double reference = 0.0;
    for (std::size_t i = 0; i < wj.size(); ++i) {
      for (std::size_t j = 0; j < wk.size(); ++j) {
        double const ni = static_cast<double>(i);
        double const nj = static_cast<double>(j);
        double const fj = crash.s * std::exp(rate - crash.q - crash.lambda * kappa_of(crash) + ni * crash.mean +
                                             0.5 * ni * crash.vol * crash.vol);
        double const fk = 1.25 * mild.s * std::exp(rate - mild.q - mild.lambda * kappa_of(mild) + nj * mild.mean +
                                                   0.5 * nj * mild.vol * mild.vol);
        double const var = crash.sigma * crash.sigma + ni * crash.vol * crash.vol + mild.sigma * mild.sigma +
                           nj * mild.vol * mild.vol - 2.0 * rho * crash.sigma * mild.sigma;
        reference += wj[i] * wk[j] * black_scholes::call({fj, fk, var, std::exp(-rate)});
      }
    }
    check_near(run.results[0], reference, 2e-4 * reference + 2e-4);
    // The basket walks the same way (no closed form here): priced.
    REQUIRE(run.results[1].status == trade_status::ok);
    CHECK(run.results[1].price > 0.0);
  }
}

TEST_CASE("a one-date Bermudan call on a Bates asset: the walk's QE substeps with jumps", "[heavy]")
{
  heston_case const c{100, 100, 1, 0.05, 0.0, 0.04, 2.0, 0.04, 0.3, -0.7, 0.5, -0.1, 0.1};
  trade one_date = heston_trade_of("bermudan", product_kind::vanilla, option_type::call, c.k, c.t);
  one_date.exercise = exercise_style::bermudan;
  one_date.exercise_dates = 1;
  engine_options o = with_paths(200000);
  o.steps = 100;
  auto const run = price_with(heston_market(c), {one_date}, o);
  check_near(run.results[0], heston_call(c), 0.01);
}
