// --precision double on the GPU backend: closed forms, the CPU's double prices to double
// rounding, and bits that do not depend on the grid.
#include "catch.hpp"
#include "heston_reference.hpp"
#include "mcprice/engine.hpp"
#include "path_book.hpp"
#include "pricing_cases.hpp"
#include "result_bits.hpp"
#include "two_asset_book.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

using namespace mcprice;
using namespace mcprice::testing;

namespace {

pricing_run price_double(const market_data& m, std::vector<trade> trades, backend_choice b, std::int64_t paths,
                         std::int64_t steps, int grid = 0, kernel_route route = kernel_route::automatic)
{
  engine_options o;
  o.backend = b;
  o.precision = path_precision::float64;
  o.paths = paths;
  o.steps = steps;
  o.grid_blocks = grid;
  o.route = route;
  portfolio book;
  book.trades = std::move(trades);
  return engine(m, o).price(book);
}

void check_reference(const trade_result& r, double reference, double allowance = 0.0)
{
  INFO(r.id << ": mc " << r.price << " +- " << r.std_error << ", reference " << reference << " " << r.message);
  REQUIRE(r.status == trade_status::ok);
  CHECK(std::abs(r.price - reference) <= 4.0 * r.std_error + allowance + 1e-9 * std::abs(reference));
}

// The same normals on both backends up to sin/cos/log/exp's last bits in double: the prices
// agree to about 1e-15 relative; 1e-10 leaves room for a path's continuous payoff.
void check_same_as_cpu(const pricing_run& gpu, const pricing_run& cpu)
{
  REQUIRE(gpu.results.size() == cpu.results.size());
  for (std::size_t i = 0; i < gpu.results.size(); ++i) {
    auto const& g = gpu.results[i];
    auto const& c = cpu.results[i];
    INFO(g.id << ": gpu " << g.price << ", cpu " << c.price);
    REQUIRE(g.status == trade_status::ok);
    CHECK(std::abs(g.price - c.price) <= 1e-10 * std::abs(c.price) + 1e-14);
  }
}

}  // namespace

TEST_CASE(
    "GPU double paths: GBM vanillas and digitals as one-step paths match Black-Scholes and the CPU, on both "
    "routes",
    "[gpu]")
{
  auto const m = test_market();
  auto const book = reference_book();
  auto const gpu = price_double(m, book.trades, backend_choice::gpu, 2'000'000, 1);
  for (std::size_t i = 0; i < book.trades.size(); ++i)
    check_reference(gpu.results[i], reference_price(book.trades[i], m));
  auto const fused = price_double(m, book.trades, backend_choice::gpu, 100'000, 1);
  check_same_as_cpu(fused, price_double(m, book.trades, backend_choice::cpu, 100'000, 1));
  CHECK(same_result_bits(fused,
                         price_double(m, book.trades, backend_choice::gpu, 100'000, 1, 0, kernel_route::two_phase)));
}

TEST_CASE(
    "GPU double paths: every path product matches its closed form and the CPU; bits do not depend on the grid "
    "or the route",
    "[gpu]")
{
  auto const m = flat_x_market();
  auto const book = path_book(m);
  auto const trades = trades_of(book);
  auto const gpu = price_double(m, trades, backend_choice::gpu, 2'000'000, 64);
  for (std::size_t i = 0; i < book.size(); ++i) check_reference(gpu.results[i], book[i].reference);
  auto const small = price_double(m, trades, backend_choice::gpu, 100'003, 64);
  check_same_as_cpu(small, price_double(m, trades, backend_choice::cpu, 100'003, 64));
  for (int grid : {1, 7, 5000}) {
    INFO("grid " << grid);
    CHECK(same_result_bits(small, price_double(m, trades, backend_choice::gpu, 100'003, 64, grid)));
  }
  CHECK(same_result_bits(small, price_double(m, trades, backend_choice::gpu, 100'003, 64, 0, kernel_route::two_phase)));
}

TEST_CASE("GPU double paths: best-of and worst-of match Stulz and the CPU, on both routes", "[gpu]")
{
  auto const m = stulz_market();
  auto const book = stulz_book();
  auto const trades = trades_of(book);
  auto const gpu = price_double(m, trades, backend_choice::gpu, 2'000'000, 1);
  for (std::size_t i = 0; i < book.size(); ++i) check_reference(gpu.results[i], book[i].reference);
  auto const fused = price_double(m, trades, backend_choice::gpu, 100'001, 1);
  check_same_as_cpu(fused, price_double(m, trades, backend_choice::cpu, 100'001, 1));
  CHECK(same_result_bits(fused, price_double(m, trades, backend_choice::gpu, 100'001, 1, 0, kernel_route::two_phase)));
}

TEST_CASE("GPU double paths: Heston QE matches the semi-analytic price and the CPU, on both routes", "[gpu]")
{
  constexpr double qe_allowance = 0.01;
  heston_case const c{100, 100, 1, 0, 0, 0.0175, 1.5768, 0.0398, 0.5751, -0.5711};
  auto const m = heston_market(c);
  trade barrier = heston_trade_of("do-call", product_kind::barrier, option_type::call, c.k, c.t);
  barrier.barrier = 80.0;
  barrier.barrier_type = barrier_kind::down_out;
  barrier.monitoring = monitoring_kind::continuous;
  std::vector<trade> const trades = {heston_trade_of("call", product_kind::vanilla, option_type::call, c.k, c.t),
                                     heston_trade_of("put", product_kind::vanilla, option_type::put, c.k, c.t),
                                     barrier};
  auto const gpu = price_double(m, trades, backend_choice::gpu, 2'000'000, 100);
  check_reference(gpu.results[0], heston_call(c), qe_allowance);
  check_reference(gpu.results[1], heston_put(c), qe_allowance);
  auto const fused = price_double(m, trades, backend_choice::gpu, 50'001, 100);
  check_same_as_cpu(fused, price_double(m, trades, backend_choice::cpu, 50'001, 100));
  CHECK(same_result_bits(fused, price_double(m, trades, backend_choice::gpu, 50'001, 100, 0, kernel_route::two_phase)));
  // Europeans alone take the Europeans-only kernel: the same bits as beside the barrier.
  auto const alone = price_double(m, {trades[0], trades[1]}, backend_choice::gpu, 50'001, 100);
  CHECK(std::memcmp(&alone.results[0].price, &fused.results[0].price, sizeof(double)) == 0);
}

TEST_CASE("GPU double paths: early exercise is priced by the host, the CPU backend's bits, and said once",
          "[gpu]")
{
  auto const m = flat_x_market();
  trade american = on_x("american", product_kind::vanilla, option_type::put);
  american.strike = 100.0;
  american.exercise = exercise_style::american;
  trade vanilla = on_x("vanilla", product_kind::vanilla, option_type::put);
  vanilla.strike = 100.0;
  auto const gpu = price_double(m, {american, vanilla}, backend_choice::gpu, 10'000, 16);
  auto const cpu = price_double(m, {american, vanilla}, backend_choice::cpu, 10'000, 16);
  REQUIRE(gpu.results[0].status == trade_status::ok);
  CHECK(std::memcmp(&gpu.results[0].price, &cpu.results[0].price, sizeof(double)) == 0);
  CHECK(std::memcmp(&gpu.results[0].std_error, &cpu.results[0].std_error, sizeof(double)) == 0);
  check_same_as_cpu(gpu, cpu);
  engine_options o;
  o.backend = backend_choice::gpu;
  o.precision = path_precision::float64;
  engine const e(m, o);
  auto const& notices = e.notices();
  CHECK(std::count_if(notices.begin(), notices.end(),
                      [](const std::string& n) { return n.find("priced in double by the host") != std::string::npos; }) ==
        1);
}

TEST_CASE("GPU double paths: Greeks, early exercise's included, are computed by the host, the CPU backend's bits",
          "[gpu]")
{
  auto const m = flat_x_market();
  trade asian = on_x("asian", product_kind::asian, option_type::call);
  asian.strike = 100.0;
  asian.fixings = 12;
  trade vanilla = on_x("vanilla", product_kind::vanilla, option_type::put);
  vanilla.strike = 95.0;
  trade american = vanilla;  // the early-exercise walk's Greek combinations
  american.id = "american";
  american.exercise = exercise_style::american;
  auto const priced = [&](backend_choice b) {
    engine_options o;
    o.backend = b;
    o.precision = path_precision::float64;
    o.greeks = true;
    o.paths = 20'000;
    o.steps = 12;
    portfolio book;
    book.trades = {asian, vanilla, american};
    return engine(m, o).price(book);
  };
  auto const gpu = priced(backend_choice::gpu);
  auto const cpu = priced(backend_choice::cpu);
  for (std::size_t i = 0; i < gpu.results.size(); ++i) {
    INFO(gpu.results[i].id << " " << gpu.results[i].message);
    REQUIRE(gpu.results[i].status == trade_status::ok);
    REQUIRE(gpu.results[i].greeks.has_value());
    CHECK(std::memcmp(&gpu.results[i].greeks->delta, &cpu.results[i].greeks->delta, sizeof(double)) == 0);
    CHECK(std::memcmp(&gpu.results[i].greeks->vega, &cpu.results[i].greeks->vega, sizeof(double)) == 0);
    CHECK(std::memcmp(&gpu.results[i].price, &cpu.results[i].price, sizeof(double)) == 0);
  }
}

TEST_CASE(
    "GPU double paths: local-vol and Heston worst-of autocallables on the GPU's double kernels, the CPU's "
    "prices, the same bits on both routes and every grid",
    "[gpu]")
{
  auto const m = parse_market(R"({"rate": 0.03, "assets": {
      "G": {"spot": 100, "dividend_yield": 0.01, "vol": 0.25},
      "L": {"spot": 100, "dividend_yield": 0.01, "model": "local_vol",
            "vol_surface": {"expiries": [0.5, 1, 2, 4], "strikes": [40, 70, 100, 130, 200],
                            "vols": [[0.3, 0.25, 0.2, 0.19, 0.2], [0.28, 0.24, 0.2, 0.19, 0.2],
                                     [0.27, 0.23, 0.2, 0.19, 0.2], [0.26, 0.23, 0.21, 0.2, 0.2]]}},
      "H": {"spot": 100, "model": "heston", "heston": {"v0": 0.04, "kappa": 1.5, "theta": 0.05, "xi": 0.5, "rho": -0.7}}},
      "correlation": {"G,L": 0.4, "G,H": 0.3}})",
                              "local-vol worst-of");
  trade note;
  note.id = "worst-of-note";
  note.product = product_kind::autocallable;
  note.underlyings = {"G", "L"};
  note.maturity = 2.0;
  note.observation_times = {0.5, 1.0, 1.5, 2.0};
  note.coupon = 0.03;
  note.coupon_barrier = {0.9};
  note.ki_barrier = 0.6;
  trade heston = note;
  heston.id = "heston-worst-of-note";
  heston.underlyings = {"G", "H"};
  trade mixed = note;
  mixed.id = "mixed-worst-of-note";
  mixed.underlyings = {"L", "H"};
  std::vector<trade> const book = {note, heston, mixed};
  auto const gpu = price_double(m, book, backend_choice::gpu, 20'000, 24);
  check_same_as_cpu(gpu, price_double(m, book, backend_choice::cpu, 20'000, 24));
  CHECK(same_result_bits(gpu, price_double(m, book, backend_choice::gpu, 20'000, 24, 0, kernel_route::two_phase)));
  CHECK(same_result_bits(gpu, price_double(m, book, backend_choice::gpu, 20'000, 24, 7)));
  // Their kernels are the GPU's own now: the host's notice no longer names worst-ofs.
  engine_options o;
  o.backend = backend_choice::gpu;
  o.precision = path_precision::float64;
  engine const e(m, o);
  for (auto const& n : e.notices()) CHECK(n.find("worst-of") == std::string::npos);
}
