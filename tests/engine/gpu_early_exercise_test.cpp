// American and Bermudan exercise on the GPU backend: the published tables, agreement with the
// CPU backend on the same paths, and bits that do not depend on the job cap (from jobs of a
// couple of calibration blocks to one resident job), streams or grid size.
#include "catch.hpp"
#include "exercise_reference.hpp"
#include "mcprice/engine.hpp"
#include "mcprice/kernels/exercise/regression_solve.hpp"
#include "mcprice/kernels/launch/exercise.hpp"
#include "mcprice/memory/cuda_error.hpp"
#include "mcprice/memory/device_buffer.hpp"
#include "mcprice/memory/fault_injection.hpp"
#include "regression_cases.hpp"
#include "stop_timing.hpp"
#include "testing/engine_knobs.hpp"

#include <cmath>
#include <cstring>

using namespace mcprice;
using namespace mcprice::testing;

namespace {

pricing_run price_on(const market_data& m, const std::vector<trade>& trades, backend_choice b, std::int64_t paths,
                     std::size_t cap = 0, int streams = 0, int grid = 0, bool one_launch = true)
{
  engine_options o;
  o.backend = b;
  o.paths = paths;
  o.steps = 64;
  o.job_cap_bytes = cap;
  if (streams > 0) o.streams = streams;
  o.grid_blocks = grid;
  detail::engine_knobs knobs;
  knobs.calibration_one_launch = one_launch;
  portfolio book;
  book.trades = trades;
  return engine(m, o, knobs).price(book);
}

bool same_bits(const pricing_run& a, const pricing_run& b)
{
  if (a.results.size() != b.results.size()) return false;
  for (std::size_t i = 0; i < a.results.size(); ++i) {
    if (a.results[i].status != trade_status::ok || b.results[i].status != trade_status::ok) return false;
    if (std::memcmp(&a.results[i].price, &b.results[i].price, sizeof(double)) != 0) return false;
    if (std::memcmp(&a.results[i].std_error, &b.results[i].std_error, sizeof(double)) != 0) return false;
  }
  return true;
}

market_data mixed_market()
{
  return parse_market(R"({"rate": 0.04, "assets": {"A": {"spot": 100, "vol": 0.3}, "B": {"spot": 90, "vol": 0.25},
    "C": {"spot": 110, "vol": 0.2, "dividend_yield": 0.03},
    "H": {"spot": 100, "model": "heston", "heston": {"v0": 0.04, "kappa": 2, "theta": 0.05, "xi": 0.4, "rho": -0.6}},
    "K": {"spot": 90, "model": "heston", "heston": {"v0": 0.06, "kappa": 1, "theta": 0.04, "xi": 0.7, "rho": -0.3}},
    "L": {"spot": 105, "model": "heston", "heston": {"v0": 0.05, "kappa": 1.5, "theta": 0.05, "xi": 0.5, "rho": -0.5}},
    "M": {"spot": 95, "model": "heston", "heston": {"v0": 0.03, "kappa": 2, "theta": 0.04, "xi": 0.3, "rho": -0.7}},
    "N": {"spot": 100, "model": "heston", "heston": {"v0": 0.04, "kappa": 1, "theta": 0.06, "xi": 0.6, "rho": -0.4}}},
    "correlation": {"A,B": 0.5, "A,C": 0.2, "B,C": -0.1, "H,K": 0.6, "H,L": 0.4, "K,M": 0.3, "L,N": 0.5, "M,N": 0.2}})",
                      "mixed");
}

std::vector<trade> mixed_book()
{
  return {
      exercise_trade_of("p", option_type::put, {"A"}, 105, 1, exercise_style::american, 24),
      exercise_trade_of("w", option_type::put, {"A", "B", "C"}, 95, 1, exercise_style::bermudan, 6,
                        product_kind::worst_of),
      exercise_trade_of("s", option_type::call, {"A", "B"}, 5, 0.75, exercise_style::bermudan, 4, product_kind::spread),
      exercise_trade_of("h", option_type::put, {"H"}, 100, 0.5, exercise_style::american, 16),
      exercise_trade_of("hk", option_type::put, {"H", "K"}, 95, 0.5, exercise_style::american, 8,
                        product_kind::worst_of),
      exercise_trade_of("he", option_type::call, {"H", "K"}, 95, 0.5, exercise_style::european, 1,
                        product_kind::basket),
      // Five assets: the sized kernels (tuning::exercise_sized_assets). Four dates: a calibration
      // block's paths (4 dates x 10 floats x 256) fit the 48 KB cap of the tests below.
      exercise_trade_of("h5", option_type::put, {"H", "K", "L", "M", "N"}, 100, 0.5, exercise_style::american, 4,
                        product_kind::worst_of)};
}

}  // namespace

TEST_CASE("GPU American puts match Longstaff and Schwartz's Table 1", "[gpu]")
{
  for (auto const& c : longstaff_schwartz_table1()) {
    auto const m = flat_market(c.spot, c.vol, 0.06, 0.0);
    auto const dates = static_cast<std::int64_t>(50 * c.maturity);
    auto const run =
        price_on(m, {exercise_trade_of("ls", option_type::put, {"S"}, 40, c.maturity, exercise_style::american, dates)},
                 backend_choice::gpu, 200'000);
    INFO("S " << c.spot << " vol " << c.vol << " T " << c.maturity);
    check_band(run.results[0], c.finite_difference, ls_allowance_below, ls_allowance_above);
  }
}

TEST_CASE("GPU American puts that should almost never be exercised (r < q) hold: price and rho match a tree",
          "[gpu]")
{
  check_rarely_exercised_puts(backend_choice::gpu, 400'000, 400'000);
}

TEST_CASE("GPU Heston American puts and the two-asset max-call match their references", "[gpu]")
{
  for (auto const& c : clarke_parrott()) {
    auto const m = clarke_parrott_market(c.spot);
    auto const t = clarke_parrott_put();
    INFO("S " << c.spot);
    check_band(price_on(m, {t}, backend_choice::gpu, 200'000).results[0], c.reference, 0.01, 0.005);
  }
  for (auto const& c : max_call_two_assets()) {
    auto const m = max_call_market(c.spot);
    INFO("S " << c.spot);
    check_band(price_on(m,
                        {exercise_trade_of("mx", option_type::call, {"A", "B"}, 100, 3, exercise_style::bermudan, 9,
                                           product_kind::best_of)},
                        backend_choice::gpu, 200'000)
                   .results[0],
               c.reference, 0.06, 0.01);
  }
}

TEST_CASE("GPU regression solves give the host solve's bits: coefficients and continuation values", "[gpu]")
{
  // The calibration's regressions run on the device (in the backward kernel's last block or a
  // kernel of their own); the CPU backend runs the same solve on the host.
  auto const cases = regression_cases(424242, 500);
  auto const n = static_cast<int>(cases.size());
  std::vector<exercise_trade> trades(cases.size());
  std::vector<regression_sums> sums;
  for (int i = 0; i < n; ++i) {
    auto& t = trades[static_cast<std::size_t>(i)];
    t.basis = cases[static_cast<std::size_t>(i)].basis;
    t.dates = 2;  // step 0 regresses date 0; step 1 takes the totals
    t.first_coefficient = i;
    t.calibration_samples = 1000 + i;
    sums.push_back(cases[static_cast<std::size_t>(i)].sums);
  }
  device_buffer d_trades(sizeof(exercise_trade) * trades.size());
  device_buffer d_sums(sizeof(regression_sums) * sums.size());
  device_buffer d_coefficients(sizeof(float) * max_exercise_basis * trades.size());
  device_buffer d_continuation(sizeof(double) * trades.size());
  MCPRICE_CUDA_TRY(cudaMemcpy(d_trades.data(), trades.data(), d_trades.size(), cudaMemcpyHostToDevice));
  MCPRICE_CUDA_TRY(cudaMemcpy(d_sums.data(), sums.data(), d_sums.size(), cudaMemcpyHostToDevice));
  MCPRICE_CUDA_TRY(cudaMemset(d_coefficients.data(), 0, d_coefficients.size()));
  kernels::step_regression const out{d_coefficients.as<float>(), d_continuation.as<double>(), nullptr};
  for (int step : {0, 1}) {
    kernels::launch_regression_solve(d_trades.as<exercise_trade>(), n, step, d_sums.as<regression_sums>(), out,
                                     nullptr);
  }
  std::vector<float> gpu(max_exercise_basis * trades.size());
  std::vector<double> gpu_continuation(trades.size());
  MCPRICE_CUDA_TRY(cudaMemcpy(gpu.data(), d_coefficients.data(), d_coefficients.size(), cudaMemcpyDeviceToHost));
  MCPRICE_CUDA_TRY(
      cudaMemcpy(gpu_continuation.data(), d_continuation.data(), d_continuation.size(), cudaMemcpyDeviceToHost));
  std::vector<float> host(gpu.size(), 0.0F);
  std::vector<double> host_continuation(trades.size());
  for (std::size_t i = 0; i < trades.size(); ++i) {
    for (int step : {0, 1}) store_regression(trades[i], step, sums[i], host.data(), &host_continuation[i]);
  }
  int differ = 0;
  for (std::size_t k = 0; k < host.size(); ++k) differ += std::memcmp(&host[k], &gpu[k], sizeof(float)) != 0;
  CHECK(differ == 0);
  CHECK(std::memcmp(host_continuation.data(), gpu_continuation.data(), sizeof(double) * trades.size()) == 0);
}

TEST_CASE("GPU early exercise agrees with the CPU backend on the same paths", "[gpu]")
{
  auto const m = mixed_market();
  auto const gpu = price_on(m, mixed_book(), backend_choice::gpu, 20'000);
  auto const cpu = price_on(m, mixed_book(), backend_choice::cpu, 20'000);
  for (std::size_t i = 0; i < cpu.results.size(); ++i) {
    auto const& g = gpu.results[i];
    auto const& c = cpu.results[i];
    INFO(g.id << ": gpu " << g.price << " +- " << g.std_error << ", cpu " << c.price << " " << g.message);
    REQUIRE(g.status == trade_status::ok);
    // The same calibration and pricing paths; float exp/log may differ by an ulp, which may move
    // a path across an exercise boundary: far below a std error.
    CHECK(std::abs(g.price - c.price) <= 0.2 * c.std_error + 1e-6 * std::abs(c.price));
  }
}

TEST_CASE("GPU early exercise keeps its bits from the smallest job cap to none, and across streams and grids", "[gpu]")
{
  auto const m = mixed_market();
  auto const book = mixed_book();
  auto const base = price_on(m, book, backend_choice::gpu, 20'000);
  for (std::size_t cap : {std::size_t{64} << 20, std::size_t{1} << 20, std::size_t{256} << 10, std::size_t{48} << 10}) {
    INFO("job cap " << cap);
    auto const capped = price_on(m, book, backend_choice::gpu, 20'000, cap);
    for (auto const& r : capped.results) INFO(r.id << " " << r.message);
    CHECK(same_bits(base, capped));
  }
  CHECK(same_bits(base, price_on(m, book, backend_choice::gpu, 20'000, 0, 1, 7)));
  CHECK(same_bits(base, price_on(m, book, backend_choice::gpu, 20'000, 0, 8, 0)));
}

TEST_CASE(
    "GPU early exercise: a few calibration blocks sum their fixed part up front, their steps in one launch "
    "or their moving totals in the backward kernel, with the bits of the per-step sums",
    "[gpu]")
{
  // Few paths a trade: a handful of calibration blocks, latency-bound steps (gpu_calibration.cpp).
  // 7 trades: every step in one cooperative launch, or (one launch off) a launch a step whose last
  // block sums the moving totals (7 x 12 tasks for its 8 warps) and solves; 14 trades (168 tasks,
  // above its limit of 96): a totals kernel of the moving part and a solve kernel. Against a
  // 48 KB cap, whose jobs re-simulate their paths and sum every component each step.
  auto const m = mixed_market();
  auto twelve = mixed_book();
  for (auto t : mixed_book()) {
    t.id += "-2";
    twelve.push_back(t);
  }
  for (auto const& book : {mixed_book(), twelve}) {
    for (std::int64_t paths : {std::int64_t{700}, std::int64_t{3000}}) {
      INFO(book.size() << " trades, " << paths << " paths");
      auto const resident = price_on(m, book, backend_choice::gpu, paths);
      auto const per_step = price_on(m, book, backend_choice::gpu, paths, std::size_t{48} << 10);
      for (auto const& r : per_step.results) INFO(r.id << " " << r.message);
      CHECK(same_bits(resident, per_step));
      CHECK(same_bits(resident, price_on(m, book, backend_choice::gpu, paths, 0, 1, 3)));
      CHECK(same_bits(resident, price_on(m, book, backend_choice::gpu, paths, 0, 0, 0, false)));
    }
  }
}

TEST_CASE(
    "GPU early exercise: a failed calibration allocation fails its family clearly, leaks nothing, and the engine "
    "recovers",
    "[gpu]")
{
  auto const m = mixed_market();
  auto const book_trades = mixed_book();
  engine_options o;
  o.backend = backend_choice::gpu;
  o.paths = 20'000;
  o.steps = 64;
  portfolio book;
  book.trades = book_trades;
  engine const eng(m, o);
  auto const clean = eng.price(book);
  fault_injection::fail_scratch_allocation(1);  // the calibration's path scratch
  auto const run = eng.price(book);
  fault_injection::clear();
  for (auto const& r : run.results) {
    INFO(r.id << ": " << r.message);
    CHECK(r.status == trade_status::error);
    CHECK(r.message.find("calibration: ") != std::string::npos);
    CHECK(r.message.find("injected failure") != std::string::npos);
  }
  auto const report = eng.memory();
  REQUIRE(report);
  REQUIRE(report->scratch);
  CHECK(report->scratch->requested == 0);
  CHECK(same_bits(clean, eng.price(book)));
}

namespace {

pricing_run greeks_on(backend_choice b, std::size_t cap, bool shared_walks)
{
  engine_options o;
  o.backend = b;
  o.paths = 20'000;
  o.steps = 64;
  o.greeks = true;
  o.job_cap_bytes = cap;
  detail::engine_knobs knobs;
  knobs.shared_greek_walks = shared_walks;
  portfolio book;
  book.trades = mixed_book();
  return engine(mixed_market(), o, knobs).price(book);
}

bool same_bits(const greek_estimate& a, const greek_estimate& b)
{
  return std::memcmp(&a.value, &b.value, sizeof(double)) == 0 &&
         std::memcmp(&a.std_error, &b.std_error, sizeof(double)) == 0;
}

}  // namespace

TEST_CASE(
    "GPU early-exercise Greeks: spot legs walked together keep every Greek's bits, across job caps, and agree with the "
    "CPU",
    "[gpu]")
{
  auto const base = greeks_on(backend_choice::gpu, 0, true);
  auto const alone = greeks_on(backend_choice::gpu, 0, false);
  auto const cpu = greeks_on(backend_choice::cpu, 0, true);
  REQUIRE(same_bits(base, alone));
  for (std::size_t cap : {std::size_t{0}, std::size_t{48} << 10}) {
    // The small cap splits a group's combinations between jobs: each job walks its own part.
    auto const capped = cap == 0 ? alone : greeks_on(backend_choice::gpu, cap, true);
    for (std::size_t i = 0; i < base.results.size(); ++i) {
      INFO(base.results[i].id << ", job cap " << cap << ": " << capped.results[i].message);
      REQUIRE(base.results[i].greeks);
      REQUIRE(capped.results[i].greeks);
      auto const a = base.results[i].greeks->all();
      auto const b = capped.results[i].greeks->all();
      REQUIRE(a.size() == b.size());
      for (std::size_t k = 0; k < a.size(); ++k) {
        INFO("Greek " << k << ": " << a[k].value << " against " << b[k].value);
        CHECK(same_bits(a[k], b[k]));
      }
    }
  }
  for (std::size_t i = 0; i < base.results.size(); ++i) {
    REQUIRE(cpu.results[i].greeks);
    auto const g = base.results[i].greeks->all();
    auto const c = cpu.results[i].greeks->all();
    REQUIRE(g.size() == c.size());
    for (std::size_t k = 0; k < g.size(); ++k) {
      INFO(base.results[i].id << ", Greek " << k << ": gpu " << g[k].value << " +- " << g[k].std_error << ", cpu "
                              << c[k].value);
      // The same paths; an ulp of exp or log may move a path across an exercise boundary.
      CHECK(std::abs(g[k].value - c[k].value) <= 0.5 * c[k].std_error + 1e-6 * std::abs(c[k].value) + 1e-9);
    }
  }
}

TEST_CASE("GPU early exercise: a stop reaches into a calibration: the call ends within a second, all cancelled",
          "[gpu]")
{
  // 32 American puts of 252 dates, each calibrated on 2^19 paths, stopped 300 ms in, while their
  // calibration runs: its kernels read the calibration's stop word (calibration_stop.hpp).
  portfolio book;
  for (int i = 0; i < 32; ++i) {
    book.trades.push_back(exercise_trade_of("put-" + std::to_string(i), option_type::put, {"FLAT"}, 90.0 + i, 1.0,
                                            exercise_style::american, 252));
  }
  engine_options o;
  o.backend = backend_choice::gpu;
  o.paths = std::int64_t{1} << 19;
  o.calibration_paths = std::int64_t{1} << 19;
  engine const eng(test_market(), o);
  auto const s = price_stopped(eng, book, std::chrono::milliseconds(300));
  INFO("returned " << s.after_stop << " s after the stop");
  CHECK(s.after_stop < 1.0);
  for (auto const& r : s.run.results) CHECK(r.status == trade_status::cancelled);
}
