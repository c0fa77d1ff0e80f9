// --precision double for the early-exercise walk on the CPU backend: American and Bermudan
// options (least squares, calibration and pricing in double) against the same references as
// float, multi-asset European trades on Heston assets (the walk as one date), bits across
// threads, reruns and capped calibration jobs, and double against float within their errors.
#include "catch.hpp"
#include "backends/cpu/cpu_calibration.hpp"
#include "backends/family_run.hpp"
#include "exercise_reference.hpp"
#include "heston_reference.hpp"
#include "mcprice/black_scholes.hpp"
#include "mcprice/engine.hpp"
#include "mcprice/market_reader.hpp"
#include "products/early_exercise_setup.hpp"
#include "result_bits.hpp"
#include "stulz_reference.hpp"

#include <cmath>
#include <cstring>

using namespace mcprice;
using namespace mcprice::testing;

namespace {

engine_options options_in(path_precision precision, std::int64_t paths, std::int64_t steps = 64, unsigned threads = 0)
{
  engine_options o;
  o.backend = backend_choice::cpu;
  o.precision = precision;
  o.paths = paths;
  o.steps = steps;
  o.threads = threads;
  return o;
}

pricing_run price_in(path_precision precision, const market_data& m, std::vector<trade> trades, std::int64_t paths,
                     std::int64_t steps = 64, unsigned threads = 0)
{
  portfolio book;
  book.trades = std::move(trades);
  return engine(m, options_in(precision, paths, steps, threads)).price(book);
}

pricing_run price_double(const market_data& m, std::vector<trade> trades, std::int64_t paths, std::int64_t steps = 64,
                         unsigned threads = 0)
{
  return price_in(path_precision::float64, m, std::move(trades), paths, steps, threads);
}

market_data two_heston_market()
{
  return parse_market(R"({"rate": 0.03, "assets": {
    "H1": {"spot": 100, "dividend_yield": 0.01, "model": "heston", "heston": {"v0": 0.04, "kappa": 1.5, "theta": 0.05, "xi": 0.5, "rho": -0.6}},
    "H2": {"spot": 95, "model": "heston", "heston": {"v0": 0.06, "kappa": 1.0, "theta": 0.05, "xi": 0.4, "rho": -0.5}}},
    "correlation": {"H1,H2": 0.3}})",
                      "two-heston");
}

}  // namespace

TEST_CASE("double Bermudan options match a binomial tree with the same exercise dates")
{
  check_random_bermudans(20261204, 4, [](const market_data& m, const trade& b) { return price_double(m, {b}, 40'000); });
}

TEST_CASE("double American puts match Longstaff and Schwartz's Table 1")
{
  // Two rows of the table (the float test takes all of them): 50 exercise dates a year.
  auto const& table = longstaff_schwartz_table1();
  for (std::size_t i : {std::size_t{0}, table.size() - 1}) {
    auto const& c = table[i];
    auto const dates = static_cast<std::int64_t>(50 * c.maturity);
    auto const run = price_double(
        flat_market(c.spot, c.vol, 0.06, 0.0),
        {exercise_trade_of("ls", option_type::put, {"S"}, 40, c.maturity, exercise_style::american, dates)}, 40'000);
    INFO("S " << c.spot << " vol " << c.vol << " T " << c.maturity);
    check_band(run.results[0], c.finite_difference, ls_allowance_below, ls_allowance_above);
  }
}

TEST_CASE("a double Bermudan with one exercise date is the European option; a Heston American put, Clarke-Parrott's")
{
  check_one_date_bermudans(
      [](const market_data& m, std::vector<trade> trades) { return price_double(m, std::move(trades), 100'000); });

  auto const& c = clarke_parrott().front();
  auto const heston = price_double(clarke_parrott_market(c.spot), {clarke_parrott_put()}, 40'000);
  INFO("Clarke-Parrott S " << c.spot);
  check_band(heston.results[0], c.reference, 0.01, 0.005);  // as in float: 50 dates, QE
}

TEST_CASE("double multi-asset trades on Heston assets: Stulz's closed form without vol of vol")
{
  // xi = 0 and v0 = theta: each variance stays at theta, a GBM with vol sqrt(theta).
  auto const m = parse_market(R"({"rate": 0.03, "assets": {
    "X": {"spot": 100, "dividend_yield": 0.01, "model": "heston", "heston": {"v0": 0.04, "kappa": 1, "theta": 0.04, "xi": 0, "rho": -0.5}},
    "Y": {"spot": 95, "dividend_yield": 0.02, "model": "heston", "heston": {"v0": 0.09, "kappa": 2, "theta": 0.09, "xi": 0, "rho": 0.3}}},
    "correlation": {"X,Y": 0.4}})",
                              "heston-multi");
  trade best = exercise_trade_of("best", option_type::call, {"X", "Y"}, 100, 1, exercise_style::european, 1,
                                 product_kind::best_of);
  best.exercise = exercise_style::european;
  trade worst = best;
  worst.id = "worst";
  worst.product = product_kind::worst_of;
  auto const run = price_double(m, {best, worst}, 100'000, 20);
  two_assets const p{100, 95, 0.01, 0.02, 0.2, 0.3, 0.4, 0.03, 1};
  check_band(run.results[0], stulz_call(p, 100, true), 0.0, 0.0);
  check_band(run.results[1], stulz_call(p, 100, false), 0.0, 0.0);
}

TEST_CASE("double early exercise differs from float by sampling noise and keeps its bits across threads and reruns")
{
  auto const heston = two_heston_market();
  trade basket = exercise_trade_of("basket", option_type::call, {"H1", "H2"}, 95, 1, exercise_style::european, 1,
                                   product_kind::basket);
  trade american = exercise_trade_of("american", option_type::put, {"H1", "H2"}, 100, 0.5, exercise_style::bermudan, 6,
                                     product_kind::worst_of);
  std::vector<trade> const book = {basket, american};
  auto const one = price_double(heston, book, 20'003, 24, 1);
  auto const two = price_double(heston, book, 20'003, 24, 2);
  CHECK(same_result_bits(one, two));
  CHECK(same_result_bits(one, price_double(heston, book, 20'003, 24, 2)));

  auto const in_float = price_in(path_precision::float32, heston, book, 20'003, 24);
  for (std::size_t i = 0; i < book.size(); ++i) {
    auto const& d = one.results[i];
    auto const& s = in_float.results[i];
    INFO(d.id << ": double " << d.price << " +- " << d.std_error << ", float " << s.price << " +- " << s.std_error << " "
              << d.message);
    REQUIRE(d.status == trade_status::ok);
    CHECK(d.price != s.price);  // other normals (double Box-Muller), not the float path rounded
    CHECK(std::abs(d.price - s.price) <= 4.0 * std::hypot(d.std_error, s.std_error));
  }
}

TEST_CASE("double calibration: capped jobs replay the resident job's decisions, coefficients bit for bit")
{
  using namespace mcprice::detail;
  auto const m = flat_market(40, 0.3, 0.05, 0.02);
  engine_options const o = options_in(path_precision::float64, 3000);
  basic_exercise_family<double> f;
  add_to_family(f, make_exercise_job<double>(
                       exercise_trade_of("a", option_type::put, {"S"}, 42, 1, exercise_style::american, 12), m, o));
  add_to_family(f, make_exercise_job<double>(
                       exercise_trade_of("b", option_type::call, {"S"}, 38, 0.5, exercise_style::bermudan, 5), m, o));
  run_control const control{};
  auto const layout = layout_of(f);
  auto const coefficients = [&](std::size_t cap) {
    auto const plan = plan_calibration(f.trades, f.calibration_blocks, cap);
    auto executor = make_cpu_calibration(f, layout, plan, control);
    return std::make_pair(plan.jobs.size(), calibrate(f, plan, *executor, control).coefficients);
  };
  auto const [resident_jobs, resident] = coefficients(0);
  // One block of the larger trade: 256 paths of 12 dates in doubles, and a cash flow each.
  auto const [capped_jobs, capped] = coefficients(calibration_bytes(1, 256 * 12, sizeof(double)));
  CHECK(resident_jobs == 1);
  CHECK(capped_jobs > 2);
  REQUIRE(resident.size() == capped.size());
  CHECK(std::memcmp(resident.data(), capped.data(), sizeof(double) * resident.size()) == 0);
  bool any = false;
  for (double c : resident) any = any || c != 0.0;
  CHECK(any);
}

TEST_CASE("double early exercise under Sobol points agrees with Philox")
{
  auto const m = flat_market(100, 0.25, 0.03, 0.01);
  trade const put = exercise_trade_of("p", option_type::put, {"S"}, 105, 1, exercise_style::bermudan, 8);
  engine_options o = options_in(path_precision::float64, 16'384, 16);
  portfolio book;
  book.trades = {put};
  auto const philox = engine(m, o).price(book);
  o.rng = rng_kind::sobol;
  auto const sobol = engine(m, o).price(book);
  auto const& a = philox.results[0];
  auto const& b = sobol.results[0];
  INFO("philox " << a.price << " +- " << a.std_error << ", sobol " << b.price << " +- " << b.std_error << " "
                 << b.message);
  REQUIRE(b.status == trade_status::ok);
  CHECK(std::abs(a.price - b.price) <= 4.0 * std::hypot(a.std_error, b.std_error) + 0.01);
}

TEST_CASE("double Bermudan put Greeks match a binomial tree's differences with the same bumps and exercise dates")
{
  check_bermudan_put_greeks([](const market_data& m, const trade& t) {
    engine_options o = options_in(path_precision::float64, 100'000);
    o.greeks = true;
    portfolio book;
    book.trades = {t};
    return engine(m, o).price(book);
  });
}

TEST_CASE("double Greeks of the early-exercise walk: float's within their errors, bits across threads")
{
  // A Bermudan worst-of put and a European basket (the walk as one date) on Heston assets, and a
  // Bermudan put on a Merton asset: spot, vol, correlation, rate and time bumps in double.
  auto m = parse_market(R"({"rate": 0.03, "assets": {
    "H1": {"spot": 100, "dividend_yield": 0.01, "model": "heston", "heston": {"v0": 0.04, "kappa": 1.5, "theta": 0.05, "xi": 0.5, "rho": -0.6}},
    "H2": {"spot": 95, "model": "heston", "heston": {"v0": 0.06, "kappa": 1.0, "theta": 0.05, "xi": 0.4, "rho": -0.5}},
    "J": {"spot": 100, "vol": 0.2, "jumps": {"intensity": 0.5, "mean": -0.1, "vol": 0.15}}},
    "correlation": {"H1,H2": 0.3}})",
                        "walked");
  trade basket = exercise_trade_of("basket", option_type::call, {"H1", "H2"}, 95, 1, exercise_style::european, 1,
                                   product_kind::basket);
  trade worst = exercise_trade_of("worst", option_type::put, {"H1", "H2"}, 100, 0.5, exercise_style::bermudan, 6,
                                  product_kind::worst_of);
  trade jump = exercise_trade_of("jump", option_type::put, {"J"}, 100, 1, exercise_style::bermudan, 8);
  portfolio book;
  book.trades = {basket, worst, jump};
  auto const priced = [&](path_precision precision, unsigned threads) {
    engine_options o = options_in(precision, 40'003, 24, threads);
    o.greeks = true;
    return engine(m, o).price(book);
  };
  auto const one = priced(path_precision::float64, 1);
  auto const two = priced(path_precision::float64, 2);
  auto const in_float = priced(path_precision::float32, 0);
  CHECK(same_result_bits(one, two));
  CHECK(one.summary.without_greeks == 0);
  for (std::size_t i = 0; i < book.trades.size(); ++i) {
    REQUIRE(one.results[i].status == trade_status::ok);
    REQUIRE(one.results[i].greeks.has_value());
    REQUIRE(two.results[i].greeks.has_value());
    REQUIRE(in_float.results[i].greeks.has_value());
    auto const d = one.results[i].greeks->all();
    auto const again = two.results[i].greeks->all();
    auto const f = in_float.results[i].greeks->all();
    REQUIRE(d.size() == f.size());
    REQUIRE(d.size() == again.size());
    for (std::size_t g = 0; g < d.size(); ++g) {
      INFO(book.trades[i].id << " Greek " << g << ": double " << d[g].value << " +- " << d[g].std_error << ", float "
                             << f[g].value << " +- " << f[g].std_error);
      CHECK(same_bits(d[g].value, again[g].value));
      CHECK(same_bits(d[g].std_error, again[g].std_error));
      CHECK(d[g].value != f[g].value);  // other normals (double Box-Muller), not the float path rounded
      // Each precision calibrates its own policy; a policy's error moves a difference at second
      // order, which the allowance (1% of the value) covers.
      CHECK(std::abs(d[g].value - f[g].value) <=
            4.0 * std::hypot(d[g].std_error, f[g].std_error) + 0.01 * std::abs(f[g].value) + 1e-6);
    }
  }
}
