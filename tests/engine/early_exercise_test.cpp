// American and Bermudan exercise (least squares) on the CPU backend against published tables,
// a binomial tree and exact identities; the calibration's host logic (planning, solving, capped
// jobs replaying the same decisions) without a GPU.
#include "catch.hpp"
#include "backends/cpu/cpu_calibration.hpp"
#include "cpu_pricing.hpp"
#include "products/early_exercise_setup.hpp"
#include "exercise_reference.hpp"
#include "heston_reference.hpp"
#include "mcprice/black_scholes.hpp"
#include "mcprice/engine.hpp"
#include "mcprice/kernels/exercise/regression_solve.hpp"
#include "backends/pricing_backend.hpp"
#include "regression_cases.hpp"
#include "stulz_reference.hpp"

#include <Eigen/Dense>

#include <atomic>
#include <cmath>
#include <cstring>
#include <random>

using namespace mcprice;
using namespace mcprice::testing;

namespace {

pricing_run price_cpu(const market_data& m, std::vector<trade> trades, std::int64_t paths, unsigned threads = 0,
                      std::int64_t steps = 64)
{
  engine_options o;
  o.backend = backend_choice::cpu;
  o.paths = paths;
  o.steps = steps;
  o.threads = threads;
  portfolio book;
  book.trades = std::move(trades);
  return engine(m, o).price(book);
}

}  // namespace

TEST_CASE(
    "American puts match Longstaff and Schwartz's Table 1 within 4 std errors and the discrete-exercise allowance", "[heavy]")
{
  for (auto const& c : longstaff_schwartz_table1()) {
    auto const m = flat_market(c.spot, c.vol, 0.06, 0.0);
    auto const dates = static_cast<std::int64_t>(50 * c.maturity);
    auto const run = price_cpu(
        m, {exercise_trade_of("ls", option_type::put, {"S"}, 40, c.maturity, exercise_style::american, dates)}, 40'000);
    INFO("S " << c.spot << " vol " << c.vol << " T " << c.maturity);
    check_band(run.results[0], c.finite_difference, ls_allowance_below, ls_allowance_above);
  }
}

TEST_CASE("Bermudan options match a binomial tree with the same exercise dates on random parameters")
{
  check_random_bermudans(20261130, 8, [](const market_data& m, const trade& b) { return price_cpu(m, {b}, 40'000); });
}

TEST_CASE("a Bermudan with one exercise date is the European option within 4 std errors")
{
  check_one_date_bermudans(
      [](const market_data& m, std::vector<trade> trades) { return price_cpu(m, std::move(trades), 100'000); });
}

TEST_CASE("an American call on an asset without dividends is worth the European call")
{
  auto const m = flat_market(95, 0.3, 0.05, 0.0);
  black_scholes::inputs const in{95 * std::exp(0.05 * 1.0), 100, 0.09, std::exp(-0.05)};
  auto const run =
      price_cpu(m, {exercise_trade_of("c", option_type::call, {"S"}, 100, 1.0, exercise_style::american, 50)}, 100'000);
  // Exercising early never pays; a regressed policy may exercise by mistake (a low bias only).
  check_band(run.results[0], black_scholes::call(in), 0.02, 0.0);
}

TEST_CASE("Heston American puts match Clarke and Parrott's PDE references")
{
  for (auto const& c : clarke_parrott()) {
    auto const m = clarke_parrott_market(c.spot);
    auto const t = clarke_parrott_put();
    auto const run = price_cpu(m, {t}, 40'000);
    INFO("S " << c.spot);
    // 50 exercise dates in a quarter and QE's discretisation: 0.01 below, 0.005 above.
    check_band(run.results[0], c.reference, 0.01, 0.005);
  }
}

TEST_CASE("a Bermudan max-call on two assets matches Andersen and Broadie's reference")
{
  for (auto const& c : max_call_two_assets()) {
    auto const m = max_call_market(c.spot);
    auto const run = price_cpu(m,
                               {exercise_trade_of("mx", option_type::call, {"A", "B"}, 100, 3, exercise_style::bermudan,
                                                  9, product_kind::best_of)},
                               60'000);
    INFO("S " << c.spot);
    // The references are given to 0.01; the regressed policy's low bias is a few cents.
    check_band(run.results[0], c.reference, 0.06, 0.01);
  }
}

TEST_CASE("early-exercise prices are reproducible bit for bit across runs and thread counts")
{
  auto const m = flat_market(40, 0.3, 0.05, 0.02);
  std::vector<trade> const book = {
      exercise_trade_of("a", option_type::put, {"S"}, 42, 1, exercise_style::american, 20),
      exercise_trade_of("b", option_type::call, {"S"}, 38, 0.5, exercise_style::bermudan, 6)};
  auto const one = price_cpu(m, book, 20'000, 1);
  auto const many = price_cpu(m, book, 20'000, 4);
  for (std::size_t i = 0; i < book.size(); ++i) {
    CHECK(std::memcmp(&one.results[i].price, &many.results[i].price, sizeof(double)) == 0);
    CHECK(std::memcmp(&one.results[i].std_error, &many.results[i].std_error, sizeof(double)) == 0);
  }
}

TEST_CASE("exercising today wins when it pays more than the continuation")
{
  auto const m = flat_market(20, 0.2, 0.06, 0.0);
  auto const run =
      price_cpu(m, {exercise_trade_of("deep", option_type::put, {"S"}, 40, 1, exercise_style::american, 50)}, 20'000);
  CHECK(run.results[0].price == 20.0);
  CHECK(run.results[0].std_error == 0.0);
}

TEST_CASE("capped calibration jobs replay the same decisions: coefficients bit-identical to one resident job")
{
  auto const m =
      parse_market(R"({"rate": 0.04, "assets": {"A": {"spot": 100, "vol": 0.3}, "B": {"spot": 90, "vol": 0.25},
    "H": {"spot": 100, "model": "heston", "heston": {"v0": 0.04, "kappa": 2, "theta": 0.05, "xi": 0.4, "rho": -0.6}}},
    "correlation": {"A,B": 0.5}})",
                   "split");
  engine_options o;
  o.paths = 3000;
  o.steps = 12;
  detail::exercise_family f;
  for (auto const& t : {exercise_trade_of("p", option_type::put, {"A"}, 105, 1, exercise_style::american, 12),
                        exercise_trade_of("w", option_type::put, {"A", "B"}, 95, 1, exercise_style::bermudan, 5,
                                          product_kind::worst_of),
                        exercise_trade_of("h", option_type::put, {"H"}, 100, 0.5, exercise_style::bermudan, 8)}) {
    detail::add_to_family(f, detail::make_exercise_job(t, m, o));
  }
  auto const l = detail::layout_of(f);
  detail::run_control const control{};
  auto const resident_plan = detail::plan_calibration(f.trades, f.calibration_blocks, 0);
  REQUIRE(resident_plan.resident);
  auto const base =
      detail::calibrate(f, resident_plan, *detail::make_cpu_calibration(f, l, resident_plan, control), control);
  for (std::int64_t blocks : {1, 2, 5}) {
    std::int64_t per_block = 0;
    for (auto const& t : f.trades) per_block = std::max<std::int64_t>(per_block, 256 * calibration_rows(t));
    auto const plan =
        detail::plan_calibration(f.trades, f.calibration_blocks, detail::calibration_bytes(blocks, blocks * per_block));
    REQUIRE_FALSE(plan.resident);
    REQUIRE(plan.trades_too_large.empty());
    auto const split = detail::calibrate(f, plan, *detail::make_cpu_calibration(f, l, plan, control), control);
    INFO("jobs of up to " << blocks << " blocks: " << plan.jobs.size() << " jobs");
    CHECK(std::memcmp(split.coefficients.data(), base.coefficients.data(), sizeof(float) * base.coefficients.size()) ==
          0);
    CHECK(std::memcmp(split.continuation_today.data(), base.continuation_today.data(),
                      sizeof(double) * base.continuation_today.size()) == 0);
  }
}

TEST_CASE(
    "Heston exercise steps are each step's own QE coefficients, bit for bit, with the decays kept per step length")
{
  // make_exercise_job keeps each asset's last distinct decays (exp and expm1 of kappa dt) by
  // their exact kappa dt; every step must still be what computing it alone gives. Grids with 5
  // to 17 distinct step lengths (the last more than the cache keeps, so values are evicted and
  // computed again).
  auto const m = parse_market(R"({"rate": 0.03, "assets": {
    "H": {"spot": 100, "model": "heston", "heston": {"v0": 0.04, "kappa": 2, "theta": 0.05, "xi": 0.4, "rho": -0.6}},
    "K": {"spot": 90, "model": "heston", "heston": {"v0": 0.09, "kappa": 0.7, "theta": 0.03, "xi": 0.9, "rho": -0.3}}},
    "correlation": {"H,K": 0.4}})",
                              "decays");
  struct grid {
    double maturity;
    std::int64_t dates;
    std::int64_t steps;
  };
  for (grid const g : {grid{1.0, 252, 252}, grid{0.73, 97, 300}, grid{2.3, 41, 1000}}) {
    INFO(g.dates << " dates, " << g.steps << " steps over " << g.maturity);
    engine_options o;
    o.paths = 1000;
    o.steps = g.steps;
    trade t = exercise_trade_of("w", option_type::put, {"H", "K"}, 95, g.maturity, exercise_style::bermudan, g.dates,
                                product_kind::worst_of);
    t.steps = g.steps;
    auto const job = detail::make_exercise_job(t, m, o);
    std::vector<heston_step> expected;
    int const substeps = job.kernel.substeps;
    double t_prev = 0.0;
    for (double const ti : detail::exercise_times(t, o)) {
      double const dt = (ti - t_prev) / substeps;
      for (int k = 0; k < substeps; ++k) {
        double const a = t_prev + dt * k;
        double const b = k + 1 == substeps ? ti : t_prev + dt * (k + 1);
        for (auto const& name : t.underlyings) {
          const asset& u = m.assets()[*m.find(name)];
          const heston_params& h = u.heston;
          expected.push_back(make_heston_step(b - a, m.log_forward(u, b) - m.log_forward(u, a), 1.0, false, h.kappa,
                                              h.theta, h.xi, h.rho));
        }
      }
      t_prev = ti;
    }
    REQUIRE(job.heston_steps.size() == expected.size());
    std::size_t differing = 0;
    for (std::size_t i = 0; i < expected.size(); ++i) {
      differing += std::memcmp(&job.heston_steps[i], &expected[i], sizeof(heston_step)) == 0 ? 0 : 1;
    }
    CHECK(differing == 0);
  }
}

TEST_CASE("a cancelled calibration stops before its next step and says so")
{
  auto const m = flat_market(40, 0.3, 0.05, 0.0);
  engine_options o;
  o.paths = 2000;
  detail::exercise_family f;
  detail::add_to_family(
      f, detail::make_exercise_job(exercise_trade_of("p", option_type::put, {"S"}, 42, 1, exercise_style::american, 30),
                                   m, o));
  auto const l = detail::layout_of(f);
  auto const plan = detail::plan_calibration(f.trades, f.calibration_blocks, 0);
  std::atomic<bool> cancel{true};
  detail::run_control control;
  control.cancel = &cancel;
  auto const c = detail::calibrate(f, plan, *detail::make_cpu_calibration(f, l, plan, control), control);
  CHECK(c.cancelled);
  cancel = false;
  CHECK_FALSE(detail::calibrate(f, plan, *detail::make_cpu_calibration(f, l, plan, control), control).cancelled);
}

TEST_CASE("calibration plans keep jobs within the cap, cover every block once and name trades too large")
{
  std::vector<exercise_trade> trades(3);
  std::int64_t next = 0;
  std::int64_t floats = 0;
  int const dates[] = {10, 50, 12};
  for (std::size_t i = 0; i < trades.size(); ++i) {
    trades[i].dates = dates[i];
    trades[i].assets = 1;
    trades[i].first_calibration_block = next;
    trades[i].calibration_offset = floats;
    next += 4;
    floats += 4 * 256 * dates[i];
  }
  std::size_t const cap = detail::calibration_bytes(3, 3 * 256 * 10);
  auto const plan = detail::plan_calibration(trades, next, cap);
  REQUIRE(plan.trades_too_large == std::vector<std::size_t>{1});
  CHECK(plan.smallest_need == detail::calibration_bytes(1, 256 * 50));
  std::int64_t covered = 0;
  std::int64_t last_float = 0;
  for (auto const& j : plan.jobs) {
    CHECK(detail::calibration_bytes(j) <= cap);
    covered += j.end_block - j.first_block;
    CHECK((j.end_block <= 4 || j.first_block >= 8));  // trade 1's blocks are left out
    CHECK(j.first_float >= last_float);
    last_float = j.end_float;
  }
  CHECK(covered == 8);
  CHECK(last_float == floats);  // exact rows per trade: no padding
  CHECK(detail::plan_calibration(trades, next, 0).jobs.size() == 1);
}

namespace {

std::array<float, max_exercise_basis> solved(const regression_sums& s, int basis)
{
  std::array<float, max_exercise_basis> beta{};
  solve_regression(s, basis, beta.data());
  return beta;
}

}  // namespace

TEST_CASE("the least-squares solve recovers exact coefficients and drops collinear basis functions")
{
  // y = 1 + 2x - 0.5x^2 + 0.25x^3 on x in [0.5, 1.5]: exact in the basis 1, x, x^2, x^3.
  regression_sums s{};
  for (int k = 0; k <= 100; ++k) {
    double const x = 0.5 + 0.01 * k;
    double const phi[4] = {1, x, x * x, x * x * x};
    double const y = 1 + 2 * x - 0.5 * x * x + 0.25 * x * x * x;
    int e = 0;
    for (int i = 0; i < 4; ++i) {
      for (int j = i; j < 4; ++j) s.xx[e++] += phi[i] * phi[j];
      s.xy[i] += phi[i] * y;
    }
    s.in_the_money += 1;
  }
  auto const beta = solved(s, 4);
  CHECK(std::abs(beta[0] - 1.0) < 1e-3);
  CHECK(std::abs(beta[1] - 2.0) < 1e-3);
  CHECK(std::abs(beta[2] + 0.5) < 1e-3);
  CHECK(std::abs(beta[3] - 0.25) < 1e-3);

  // Two identical basis functions: the second adds nothing to the first, so it is dropped
  // (coefficient 0) and the first carries the whole fit; no blow-up.
  regression_sums c{};
  for (int k = 0; k < 50; ++k) {
    double const x = 0.02 * k;
    double const phi[3] = {1, x, x};
    int e = 0;
    for (int i = 0; i < 3; ++i) {
      for (int j = i; j < 3; ++j) c.xx[e++] += phi[i] * phi[j];
      c.xy[i] += phi[i] * (3 * x);
    }
    c.in_the_money += 1;
  }
  auto const split = solved(c, 3);
  CHECK(std::abs(split[0]) < 1e-5);
  CHECK(std::abs(split[1] - 3.0) < 1e-5);
  CHECK(split[2] == 0.0F);

  // Fewer than two paths in the money per basis function: a constant, their mean cash flow.
  regression_sums few{};
  for (double y : {1.0, 2.0, 6.0}) {
    few.xx[0] += 1.0;
    few.xx[1] += 0.5 * y;  // a second function, ignored
    few.xy[0] += y;
    few.in_the_money += 1;
  }
  auto const constant = solved(few, 2);
  CHECK(constant[0] == 3.0F);
  CHECK(constant[1] == 0.0F);

  regression_sums none{};
  CHECK(solved(none, 4)[0] > 1e30F);  // never exercise where no path was in the money
}

TEST_CASE("the regression solve fits as a least-squares QR of the design does, on random fits of every basis size")
{
  // The oracle: Eigen's complete orthogonal decomposition (column-pivoted QR) of the design
  // matrix itself, not of the normal equations. Rank-deficient fits have many solutions; their fitted values agree.
  int checked = 0;
  for (auto const& c : testing::regression_cases(20261201, 700)) {
    auto const beta = solved(c.sums, c.basis);
    if (c.y.empty()) {
      CHECK(beta[0] > 1e30F);
      continue;
    }
    int const m = static_cast<double>(c.y.size()) < min_paths_per_basis * c.basis ? 1 : c.basis;
    auto const rows = static_cast<Eigen::Index>(c.y.size());
    Eigen::MatrixXd a(rows, m);
    Eigen::VectorXd y(rows);
    for (Eigen::Index r = 0; r < rows; ++r) {
      for (int i = 0; i < m; ++i) a(r, i) = c.phi[static_cast<std::size_t>(r)][static_cast<std::size_t>(i)];
      y(r) = c.y[static_cast<std::size_t>(r)];
    }
    // The collinear function is collinear to float rounding: its residual (about 1e-7 of its
    // norm) fits nothing but noise, which both solves refuse (here by the QR's rank threshold).
    Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> qr(rows, m);
    qr.setThreshold(1e-5);  // before compute: the solve uses the rank found there
    qr.compute(a);
    Eigen::VectorXd const reference = qr.solve(y);
    double worst = 0.0;
    double scale = 0.0;
    for (Eigen::Index r = 0; r < rows; ++r) {
      double fit = 0.0;
      for (int i = 0; i < m; ++i) fit += static_cast<double>(beta[static_cast<std::size_t>(i)]) * a(r, i);
      worst = std::max(worst, std::abs(fit - a.row(r).dot(reference)));
      scale = std::max(scale, std::abs(y(r)));
    }
    INFO("basis " << c.basis << ", " << rows << " paths: fitted values differ by " << worst << " of " << scale);
    CHECK(worst <= 1e-4 * scale);
    for (int i = m; i < max_exercise_basis; ++i) CHECK(beta[static_cast<std::size_t>(i)] == 0.0F);
    ++checked;
  }
  CHECK(checked > 600);
}

TEST_CASE("the exercise value and basis from one pass over the assets: the bits of the per-asset formulation")
{
  // The reference: every weighted spot formed, the payoff by basket_payoff_weighted, the basis
  // from each scaled spot (the extremes and the mean of w_i S_i / norm), as the basis is defined.
  std::mt19937_64 gen(20261201);
  std::uniform_real_distribution<float> spot(0.5F, 200.0F);
  std::uniform_real_distribution<float> growth(0.2F, 3.0F);
  std::uniform_real_distribution<float> scale(0.1F, 150.0F);
  std::uniform_int_distribution<int> count(1, max_exercise_assets);
  for (int trial = 0; trial < 40000; ++trial) {
    exercise_trade t{};
    t.assets = count(gen);
    t.heston = static_cast<std::uint8_t>(trial % 2);
    t.variance_basis = t.heston;
    t.basis = exercise_basis_size(t.assets, t.variance_basis != 0);
    t.norm = scale(gen);
    t.v_norm = 0.04F;
    t.strike = scale(gen);
    t.call = static_cast<std::uint8_t>((trial / 2) % 2);
    t.payoff = static_cast<enum basket_payoff>((trial / 4) % 4);
    t.unit_weights = static_cast<std::uint8_t>((trial / 16) % 2);
    exercise_asset assets[max_exercise_assets]{};
    exercise_state s{};
    float weighted[max_exercise_assets];
    for (int i = 0; i < t.assets; ++i) {
      assets[i].spot = spot(gen);
      assets[i].weight =
          t.unit_weights ? 1.0F : (trial % 7 == 0 && i == 1 ? -0.3F : 0.1F + 0.2F * static_cast<float>(i));
      s.growth[i] = growth(gen);
      s.v[i] = 0.01F * static_cast<float>(i + 1);
      weighted[i] = rounded_product(assets[i].weight, rounded_product(assets[i].spot, s.growth[i]));
    }
    s.v_sum = 0.2F;
    float const intrinsic = basket_payoff_weighted(t, [&](int i) { return weighted[i]; });
    float ref[max_exercise_basis] = {};
    ref[0] = 1.0F;
    if (t.assets == 1) {
      float const y = weighted[0] / t.norm;
      ref[1] = y;
      ref[2] = rounded_product(y, y);
      ref[3] = rounded_product(ref[2], y);
      if (t.variance_basis) {
        float const w = s.v[0] / t.v_norm;
        ref[4] = w;
        ref[5] = rounded_product(w, y);
        ref[6] = rounded_product(w, w);
      }
    } else {
      float hi = weighted[0] / t.norm;
      float lo = hi;
      float sum = 0.0F;
      sum += hi;
      for (int i = 1; i < t.assets; ++i) {
        float const v = weighted[i] / t.norm;
        sum += v;
        if (t.payoff == decltype(t.payoff)::spread) {
          lo = v;
        } else {
          hi = std::fmax(hi, v);
          lo = std::fmin(lo, v);
        }
      }
      float const p = intrinsic / t.norm;
      ref[1] = hi;
      ref[2] = lo;
      ref[3] = rounded_product(hi, hi);
      ref[4] = rounded_product(lo, lo);
      ref[5] = rounded_product(hi, lo);
      ref[6] = p;
      ref[7] = rounded_product(p, p);
      ref[8] = rounded_product(ref[7], p);
      ref[9] = t.variance_basis ? s.v_sum / (static_cast<float>(t.assets) * t.v_norm) : sum / static_cast<float>(t.assets);
    }
    leg_view const l = view_at(t, assets, s);
    float phi[max_exercise_basis] = {};
    exercise_basis(t, exercise_tables{}, 0, s, l, phi);
    INFO("trial " << trial << ", " << t.assets << " assets, payoff " << static_cast<int>(t.payoff));
    REQUIRE(std::memcmp(&l.intrinsic, &intrinsic, sizeof(float)) == 0);
    REQUIRE(std::memcmp(phi, ref, sizeof(float) * static_cast<std::size_t>(t.basis)) == 0);
  }
}

TEST_CASE("early exercise on products without it fails with a clear message")
{
  auto const m = flat_market(100, 0.2, 0.03, 0.0);
  trade d =
      exercise_trade_of("dig", option_type::call, {"S"}, 100, 1, exercise_style::american, 10, product_kind::digital);
  trade a =
      exercise_trade_of("asi", option_type::call, {"S"}, 100, 1, exercise_style::bermudan, 10, product_kind::asian);
  a.fixings = 12;
  auto const run = price_cpu(m, {d, a}, 1000);
  CHECK(run.results[0].status == trade_status::error);
  CHECK(run.results[0].message ==
        "trade dig: exercise american is not supported for product digital (vanilla and multi-asset products only)");
  CHECK(run.results[1].message ==
        "trade asi: exercise bermudan is not supported for product asian (vanilla and multi-asset products only)");
}

TEST_CASE("American put Greeks match a binomial tree's differences with the same bumps and exercise dates")
{
  check_bermudan_put_greeks([](const market_data& m, const trade& t) {
    engine_options o;
    o.backend = backend_choice::cpu;
    o.paths = 100'000;
    o.greeks = true;
    portfolio book;
    book.trades = {t};
    return engine(m, o).price(book);
  });
}

TEST_CASE("American puts that should almost never be exercised (r < q) hold: price and rho match a tree")
{
  check_rarely_exercised_puts(backend_choice::cpu, 200'000, 100'000);
}

TEST_CASE("multi-asset Bermudan Greeks: every estimate present, and exchangeable assets agree")
{
  auto const m = parse_market(R"({"rate": 0.05, "assets": {"A": {"spot": 100, "vol": 0.2, "dividend_yield": 0.1},
    "B": {"spot": 100, "vol": 0.2, "dividend_yield": 0.1}}, "correlation": {"A,B": 0.3}})",
                              "pair");
  engine_options o;
  o.backend = backend_choice::cpu;
  o.paths = 40'000;
  o.greeks = true;
  portfolio book;
  book.trades = {exercise_trade_of("mx", option_type::call, {"A", "B"}, 100, 1, exercise_style::bermudan, 4,
                                   product_kind::best_of)};
  auto const run = engine(m, o).price(book);
  REQUIRE(run.results[0].greeks);
  auto const& g = *run.results[0].greeks;
  REQUIRE(g.deltas.size() == 2);
  REQUIRE(g.cross_gammas.size() == 1);
  // A and B are the same asset under another name: their Greeks differ only by noise.
  auto const close = [](const greek_estimate& a, const greek_estimate& b) {
    return std::abs(a.value - b.value) <= 4.0 * std::hypot(a.std_error, b.std_error) + 1e-9;
  };
  CHECK(close(g.deltas[0], g.deltas[1]));
  CHECK(close(g.vegas[0], g.vegas[1]));
  CHECK(g.deltas[0].value > 0.2);
  CHECK(g.deltas[0].value < 0.8);
  CHECK(g.correlation_vega.value < 0.0);  // a max-call loses value as the assets move together
  CHECK(g.cross_gammas[0].value < 0.0);
}

TEST_CASE("multi-asset trades on Heston assets: Stulz's closed form without vol of vol, the vanilla as a basket of one", "[heavy]")
{
  // xi = 0 and v0 = theta: each variance stays at theta, a GBM with vol sqrt(theta).
  auto const m = parse_market(R"({"rate": 0.03, "assets": {
    "X": {"spot": 100, "dividend_yield": 0.01, "model": "heston", "heston": {"v0": 0.04, "kappa": 1, "theta": 0.04, "xi": 0, "rho": -0.5}},
    "Y": {"spot": 95, "dividend_yield": 0.02, "model": "heston", "heston": {"v0": 0.09, "kappa": 2, "theta": 0.09, "xi": 0, "rho": 0.3}},
    "H": {"spot": 100, "model": "heston", "heston": {"v0": 0.04, "kappa": 1.5, "theta": 0.05, "xi": 0.6, "rho": -0.7}}},
    "correlation": {"X,Y": 0.4}})",
                              "heston-multi");
  trade best = exercise_trade_of("best", option_type::call, {"X", "Y"}, 100, 1, exercise_style::european, 1,
                                 product_kind::best_of);
  trade worst = best;
  worst.id = "worst";
  worst.product = product_kind::worst_of;
  trade one =
      exercise_trade_of("one", option_type::call, {"H"}, 105, 1, exercise_style::european, 1, product_kind::basket);
  auto const run = price_cpu(m, {best, worst, one}, 200'000, 0, 100);
  two_assets const p{100, 95, 0.01, 0.02, 0.2, 0.3, 0.4, 0.03, 1};
  check_band(run.results[0], stulz_call(p, 100, true), 0.0, 0.0);
  check_band(run.results[1], stulz_call(p, 100, false), 0.0, 0.0);
  // QE's discretisation at 100 steps: a few 1e-3.
  check_band(run.results[2], heston_call({100, 105, 1, 0.03, 0.0, 0.04, 1.5, 0.05, 0.6, -0.7}), 0.01, 0.01);
}

TEST_CASE("multi-asset Heston trades refuse early exercise on a mix with GBM assets, and more than ten assets")
{
  auto const m = parse_market(R"({"rate": 0.03, "assets": {"G": {"spot": 100, "vol": 0.2},
    "H": {"spot": 100, "model": "heston", "heston": {"v0": 0.04, "kappa": 1.5, "theta": 0.05, "xi": 0.6, "rho": -0.7}}}})",
                              "mixed");
  auto const run = price_cpu(m,
                             {exercise_trade_of("mix", option_type::call, {"G", "H"}, 100, 1, exercise_style::american,
                                                4, product_kind::best_of)},
                             1000);
  CHECK(run.results[0].message ==
        "trade mix: assets H (heston) and G (gbm): exercise american on mixed models is not supported yet (European "
        "exercise is)");
}
