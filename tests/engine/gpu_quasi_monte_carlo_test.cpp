// Sobol points on the GPU backend: the very points of the CPU backend (prices agree to float
// rounding), closed forms within 4 std errors, and bits that do not depend on streams, grid
// size or the job cap.
#include "catch.hpp"
#include "exercise_reference.hpp"
#include "heston_reference.hpp"
#include "mcprice/engine.hpp"
#include "mcprice/market_reader.hpp"
#include "path_book.hpp"
#include "pricing_cases.hpp"
#include "result_bits.hpp"
#include "stulz_reference.hpp"
#include "two_asset_book.hpp"

#include <cmath>

using namespace mcprice;
using namespace mcprice::testing;

namespace {

struct sobol_run {
  backend_choice backend = backend_choice::gpu;
  std::int64_t paths = 1 << 16;
  int replicates = 16;
  std::int64_t steps = 64;
  bool greeks = false;
  int streams = 0;
  int grid = 0;
  std::size_t cap = 0;
  kernel_route route = kernel_route::automatic;
};

pricing_run price_sobol(const market_data& m, std::vector<trade> trades, const sobol_run& s)
{
  engine_options o;
  o.backend = s.backend;
  o.paths = s.paths;
  o.steps = s.steps;
  o.rng = rng_kind::sobol;
  o.rqmc_replicates = s.replicates;
  o.greeks = s.greeks;
  if (s.streams > 0) o.streams = s.streams;
  o.grid_blocks = s.grid;
  o.job_cap_bytes = s.cap;
  o.route = s.route;
  portfolio book;
  book.trades = std::move(trades);
  return engine(m, o).price(book);
}

// The GPU's and CPU's runs of one book: every trade priced, the two within `relative` of the
// price plus a fraction of the std error (a path at a strike or a barrier may land on the other
// side of it after an ulp of float exp/log), plus `absolute`.
void check_backends_agree(const market_data& m, const std::vector<trade>& book, sobol_run s, double absolute = 0.0)
{
  auto const gpu = price_sobol(m, book, s);
  s.backend = backend_choice::cpu;
  auto const cpu = price_sobol(m, book, s);
  REQUIRE(gpu.results.size() == cpu.results.size());
  for (std::size_t i = 0; i < cpu.results.size(); ++i) {
    auto const& g = gpu.results[i];
    auto const& c = cpu.results[i];
    INFO(g.id << ": gpu " << g.price << " +- " << g.std_error << ", cpu " << c.price << " +- " << c.std_error << " "
              << g.message << c.message);
    REQUIRE(g.status == trade_status::ok);
    REQUIRE(c.status == trade_status::ok);
    CHECK(g.paths == c.paths);
    CHECK(std::abs(g.price - c.price) <= 0.2 * c.std_error + 2e-5 * std::abs(c.price) + absolute);
  }
}

std::vector<trade> heston_book()
{
  trade barrier = heston_trade_of("down-out", product_kind::barrier, option_type::call, 100, 1);
  barrier.barrier = 85.0;
  barrier.barrier_type = barrier_kind::down_out;
  trade asian = heston_trade_of("asian", product_kind::asian, option_type::put, 100, 1);
  asian.fixings = 12;
  return {heston_trade_of("call", product_kind::vanilla, option_type::call, 100, 1),
          heston_trade_of("put", product_kind::vanilla, option_type::put, 90, 0.5), barrier, asian};
}

heston_case const sobol_heston{100, 100, 1, 0.02, 0.01, 0.04, 1.5, 0.04, 0.6, -0.7};

}  // namespace

TEST_CASE("GPU Sobol prices agree with the closed forms", "[gpu]")
{
  auto const m = test_market();
  auto const book = reference_book();
  auto const run = price_sobol(m, book.trades, {backend_choice::gpu, 1 << 20, 32});
  for (std::size_t i = 0; i < book.trades.size(); ++i) {
    auto const& r = run.results[i];
    double const ref = reference_price(book.trades[i], m);
    INFO(r.id << ": qmc " << r.price << " +- " << r.std_error << ", reference " << ref << " " << r.message);
    REQUIRE(r.status == trade_status::ok);
    CHECK(r.paths == 1 << 20);
    CHECK(std::abs(r.price - ref) <= price_tolerance(r.std_error, ref));
  }
  auto const pm = flat_x_market();
  auto const paths = path_book(pm);
  auto const path_run = price_sobol(pm, trades_of(paths), {backend_choice::gpu, 1 << 18, 32});
  for (std::size_t i = 0; i < paths.size(); ++i) {
    auto const& r = path_run.results[i];
    INFO(r.id << ": qmc " << r.price << " +- " << r.std_error << ", reference " << paths[i].reference);
    REQUIRE(r.status == trade_status::ok);
    // Float paths of 64 steps: 1e-4 of the price for the path arithmetic.
    CHECK(std::abs(r.price - paths[i].reference) <= 4 * r.std_error + 1e-4 * paths[i].reference);
  }
}

TEST_CASE("GPU Sobol draws the CPU backend's points: Europeans, paths, baskets, Heston, exercise", "[gpu]")
{
  auto const m = test_market();
  auto const book = reference_book();
  // Digitals: a path within float rounding of the strike pays or not; allow two such paths.
  check_backends_agree(m, book.trades, {backend_choice::gpu, 1 << 14, 8}, 2.0 * 10.0 * 110.0 / (1 << 14));
  check_backends_agree(flat_x_market(), trades_of(path_book(flat_x_market())), {backend_choice::gpu, 1 << 14, 8});
  check_backends_agree(stulz_market(), trades_of(stulz_book()), {backend_choice::gpu, 1 << 14, 8, 1});
  check_backends_agree(heston_market(sobol_heston), heston_book(), {backend_choice::gpu, 1 << 14, 8, 48});
  // Early exercise: each replicate calibrates its own policy on 2,048 Philox paths, where an ulp
  // of float exp/log moves a few paths across the boundary and the coefficients with them; the
  // Philox suite sees the same (gpu_early_exercise_test.cpp). Allow 1e-3 of the price for it.
  auto const lm = flat_market(40, 0.2, 0.06, 0.0);
  check_backends_agree(lm, {exercise_trade_of("ls", option_type::put, {"S"}, 40, 1, exercise_style::american, 50)},
                       {backend_choice::gpu, 1 << 14, 8, 50}, 2.3e-3);
}

TEST_CASE("GPU Sobol Greeks agree with the CPU backend's", "[gpu]")
{
  auto const m = test_market();
  auto const book = reference_book();
  std::vector<trade> const vanillas(book.trades.begin(), book.trades.begin() + 8);
  sobol_run s{backend_choice::gpu, 1 << 14, 8};
  s.greeks = true;
  auto const gpu = price_sobol(m, vanillas, s);
  s.backend = backend_choice::cpu;
  auto const cpu = price_sobol(m, vanillas, s);
  for (std::size_t i = 0; i < vanillas.size(); ++i) {
    REQUIRE(gpu.results[i].greeks);
    REQUIRE(cpu.results[i].greeks);
    auto const& g = *gpu.results[i].greeks;
    auto const& c = *cpu.results[i].greeks;
    INFO(vanillas[i].id << ": delta gpu " << g.delta.value << " cpu " << c.delta.value << ", vega gpu "
                        << g.vega.value << " cpu " << c.vega.value);
    CHECK(std::abs(g.delta.value - c.delta.value) <= 0.2 * c.delta.std_error + 1e-4 * std::abs(c.delta.value) + 1e-9);
    CHECK(std::abs(g.vega.value - c.vega.value) <= 0.2 * c.vega.std_error + 1e-4 * std::abs(c.vega.value) + 1e-9);
  }
}

TEST_CASE("GPU Sobol Greeks of early exercise and multi-asset Heston agree with the CPU backend's", "[gpu]")
{
  auto const m = parse_market(R"({"rate": 0.04, "assets": {"A": {"spot": 100, "vol": 0.3},
    "H": {"spot": 100, "model": "heston", "heston": {"v0": 0.04, "kappa": 2, "theta": 0.05, "xi": 0.4, "rho": -0.6}},
    "K": {"spot": 90, "model": "heston", "heston": {"v0": 0.06, "kappa": 1, "theta": 0.04, "xi": 0.7, "rho": -0.3}}},
    "correlation": {"H,K": 0.6}})",
                              "sobol-exercise");
  std::vector<trade> const book = {
      exercise_trade_of("american", option_type::put, {"A"}, 105, 1, exercise_style::american, 16),
      exercise_trade_of("heston-pair", option_type::call, {"H", "K"}, 95, 0.5, exercise_style::european, 1,
                        product_kind::basket)};
  sobol_run s{backend_choice::gpu, 1 << 13, 8, 16};
  s.greeks = true;
  auto const gpu = price_sobol(m, book, s);
  s.backend = backend_choice::cpu;
  auto const cpu = price_sobol(m, book, s);
  for (std::size_t i = 0; i < book.size(); ++i) {
    INFO(book[i].id << ": " << gpu.results[i].message << cpu.results[i].message);
    REQUIRE(gpu.results[i].greeks);
    REQUIRE(cpu.results[i].greeks);
    auto const g = gpu.results[i].greeks->all();
    auto const c = cpu.results[i].greeks->all();
    REQUIRE(g.size() == c.size());
    for (std::size_t k = 0; k < g.size(); ++k) {
      INFO("estimate " << k << ": gpu " << g[k].value << ", cpu " << c[k].value << " +- " << c[k].std_error);
      // The same calibration and paths; an ulp of float exp/log may move a path across the
      // exercise boundary: a fraction of a std error. The American's decisions also read Black's
      // value of the rest (a log, an exp and two normal CDFs, each an ulp apart on host and
      // device): on these 8,192 paths its delta moved 0.37 std errors, about seven paths.
      CHECK(std::abs(g[k].value - c[k].value) <= 0.5 * c[k].std_error + 1e-4 * std::abs(c[k].value) + 1e-9);
    }
  }
}

TEST_CASE("GPU Sobol bits do not depend on streams, grid size or the job cap", "[gpu]")
{
  auto const hm = heston_market(sobol_heston);
  auto const base = price_sobol(hm, heston_book(), {backend_choice::gpu, 1 << 15, 8, 48});
  sobol_run s{backend_choice::gpu, 1 << 15, 8, 48};
  s.streams = 1;
  s.grid = 7;
  CHECK(same_result_bits(base, price_sobol(hm, heston_book(), s)));
  s.streams = 8;
  s.grid = 0;
  s.cap = std::size_t{256} << 10;
  CHECK(same_result_bits(base, price_sobol(hm, heston_book(), s)));

  auto const m = test_market();
  auto const book = reference_book();
  auto const a = price_sobol(m, book.trades, {backend_choice::gpu, 1 << 16, 16});
  sobol_run t{backend_choice::gpu, 1 << 16, 16};
  t.grid = 3;
  CHECK(same_result_bits(a, price_sobol(m, book.trades, t)));
}

TEST_CASE("GPU Sobol: the two-phase route gives the fused route's bits", "[gpu]")
{
  auto const check_routes = [](const market_data& m, const std::vector<trade>& book, sobol_run s) {
    s.route = kernel_route::fused;
    auto const fused = price_sobol(m, book, s);
    s.route = kernel_route::two_phase;
    auto const two_phase = price_sobol(m, book, s);
    for (auto const& r : two_phase.results) INFO(r.id << " " << r.message);
    CHECK(same_result_bits(fused, two_phase));
  };
  check_routes(test_market(), reference_book().trades, {backend_choice::gpu, 1 << 14, 8});
  check_routes(flat_x_market(), trades_of(path_book(flat_x_market())), {backend_choice::gpu, 1 << 14, 8});
  check_routes(stulz_market(), trades_of(stulz_book()), {backend_choice::gpu, 1 << 14, 8, 1});
  check_routes(heston_market(sobol_heston), heston_book(), {backend_choice::gpu, 1 << 14, 8, 48});
}
