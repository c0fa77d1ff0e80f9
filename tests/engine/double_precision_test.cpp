// --precision double on the CPU backend: double paths against the closed forms of the
// single-asset products under GBM and Heston and of two-asset best-of and worst-of options,
// their reproducibility, and what they price beside them.
#include "catch.hpp"
#include "heston_reference.hpp"
#include "mcprice/engine.hpp"
#include "mcprice/input_error.hpp"
#include "mcprice/kernels/rng/host_normal_stream.hpp"
#include "mcprice/market_reader.hpp"
#include "path_book.hpp"
#include "pricing_cases.hpp"
#include "result_bits.hpp"
#include "two_asset_book.hpp"

#include <cmath>

using namespace mcprice;
using namespace mcprice::testing;

namespace {

engine_options double_options(std::int64_t paths, std::int64_t steps, unsigned threads = 0)
{
  engine_options o;
  o.backend = backend_choice::cpu;
  o.precision = path_precision::float64;
  o.paths = paths;
  o.steps = steps;
  o.threads = threads;
  return o;
}

pricing_run price_double(const market_data& m, std::vector<trade> trades, std::int64_t paths, std::int64_t steps,
                         unsigned threads = 0)
{
  portfolio book;
  book.trades = std::move(trades);
  return engine(m, double_options(paths, steps, threads)).price(book);
}

// Exact log-normal steps and the bridge leave no allowance but the references' own rounding.
void check_close(const trade_result& r, double reference, double allowance = 0.0)
{
  INFO(r.id << ": mc " << r.price << " +- " << r.std_error << ", reference " << reference << " " << r.message);
  REQUIRE(r.status == trade_status::ok);
  CHECK(std::abs(r.price - reference) <= 4.0 * r.std_error + allowance + 1e-9 * std::abs(reference));
}

}  // namespace

TEST_CASE("double normals: Box-Muller on 53-bit uniforms has the normal's first four moments")
{
  rng::host_normal_stream s(7, 3);
  double sum = 0.0, sq = 0.0, cube = 0.0, fourth = 0.0;
  int const n = 1 << 20;
  for (int i = 0; i < n / 4; ++i) {
    auto const z = s.next4_double();
    for (double x : {z.x, z.y, z.z, z.w}) {
      sum += x;
      sq += x * x;
      cube += x * x * x;
      fourth += x * x * x * x;
    }
  }
  double const scale = std::sqrt(static_cast<double>(n));
  CHECK(std::abs(sum / n) < 4.0 / scale);
  CHECK(std::abs(sq / n - 1.0) < 4.0 * std::sqrt(2.0) / scale);
  CHECK(std::abs(cube / n) < 4.0 * std::sqrt(15.0) / scale);
  CHECK(std::abs(fourth / n - 3.0) < 4.0 * std::sqrt(96.0) / scale);
}

TEST_CASE("double paths price GBM vanillas and digitals (one exact step) to the Black-Scholes values")
{
  auto const m = test_market();
  auto const book = reference_book();
  auto const run = price_double(m, book.trades, 400'000, 1);
  for (std::size_t i = 0; i < book.trades.size(); ++i) {
    check_close(run.results[i], reference_price(book.trades[i], m));
  }
}

TEST_CASE("double paths match the closed forms of barriers, touches, Asians and lookbacks", "[heavy]")
{
  auto const m = flat_x_market();
  auto const book = path_book(m);
  auto const trades = trades_of(book);
  auto const run = price_double(m, trades, 400'000, 64);
  for (std::size_t i = 0; i < book.size(); ++i) check_close(run.results[i], book[i].reference);
}

TEST_CASE("double paths match Stulz's best-of and worst-of closed forms; a basket of one asset is the vanilla")
{
  auto const m = stulz_market();
  auto const book = stulz_book();
  auto const trades = trades_of(book);
  auto const run = price_double(m, trades, 400'000, 1);
  for (std::size_t i = 0; i < book.size(); ++i) check_close(run.results[i], book[i].reference);

  // The same normals and the same double operations: equal to rounding.
  trade vanilla = on_x("one", product_kind::vanilla, option_type::call);
  vanilla.strike = 100.0;
  trade basket = vanilla;
  basket.product = product_kind::basket;
  auto const v = price_double(flat_x_market(), {vanilla}, 100'000, 1);
  auto const b = price_double(flat_x_market(), {basket}, 100'000, 1);
  CHECK(std::abs(v.results[0].price - b.results[0].price) <= 1e-12 * v.results[0].price);
}

TEST_CASE("double Heston QE paths match the semi-analytic value within 4 std errors plus the QE allowance")
{
  constexpr double qe_allowance = 0.01;
  heston_case const c{100, 100, 1, 0, 0, 0.0175, 1.5768, 0.0398, 0.5751, -0.5711};
  auto const run = price_double(heston_market(c),
                                {heston_trade_of("call", product_kind::vanilla, option_type::call, c.k, c.t),
                                 heston_trade_of("put", product_kind::vanilla, option_type::put, c.k, c.t)},
                                400'000, 100);
  check_close(run.results[0], heston_call(c), qe_allowance);
  check_close(run.results[1], heston_put(c), qe_allowance);
}

TEST_CASE("double prices differ from float ones by sampling noise and keep their bits across threads and reruns")
{
  auto const m = flat_x_market();
  trade doc = on_x("do-call", product_kind::barrier, option_type::call);
  doc.strike = 100.0;
  doc.barrier = 85.0;
  doc.barrier_type = barrier_kind::down_out;
  trade asian = on_x("asian", product_kind::asian, option_type::put);
  asian.strike = 100.0;
  asian.fixings = 52;
  auto const one = price_double(m, {doc, asian}, 100'003, 64, 1);
  auto const two = price_double(m, {doc, asian}, 100'003, 64, 2);
  CHECK(same_result_bits(one, two));
  CHECK(same_result_bits(one, price_double(m, {doc, asian}, 100'003, 64, 2)));

  engine_options f = double_options(100'003, 64);
  f.precision = path_precision::float32;
  portfolio book;
  book.trades = {doc, asian};
  auto const in_float = engine(m, f).price(book);
  for (std::size_t i = 0; i < 2; ++i) {
    auto const& d = one.results[i];
    auto const& s = in_float.results[i];
    INFO(d.id << ": double " << d.price << " +- " << d.std_error << ", float " << s.price << " +- " << s.std_error);
    CHECK(d.price != s.price);  // other normals (double Box-Muller), not the float path rounded
    CHECK(std::abs(d.price - s.price) <= 4.0 * std::hypot(d.std_error, s.std_error));
  }
}

TEST_CASE("--precision double prices multi-asset Heston and American trades beside vanillas")
{
  auto const m2 = parse_market(R"({"rate": 0.05, "assets": {"X": {"spot": 100, "vol": 0.25},
      "H1": {"spot": 90, "model": "heston", "heston": {"v0": 0.04, "kappa": 1.5, "theta": 0.04, "xi": 0.5, "rho": -0.6}},
      "H2": {"spot": 80, "model": "heston", "heston": {"v0": 0.05, "kappa": 1.0, "theta": 0.05, "xi": 0.4, "rho": -0.5}}}})",
                               "two");
  trade basket = on_x("heston-basket", product_kind::basket, option_type::call);
  basket.underlyings = {"H1", "H2"};
  basket.strike = 95.0;
  trade american = on_x("american", product_kind::vanilla, option_type::put);
  american.strike = 100.0;
  american.exercise = exercise_style::american;
  trade vanilla = on_x("vanilla", product_kind::vanilla, option_type::put);
  vanilla.strike = 100.0;
  auto const run = price_double(m2, {basket, american, vanilla}, 10'000, 16);
  // The early-exercise walk covers these in double now (double_exercise_test.cpp).
  CHECK(run.results[0].status == trade_status::ok);
  CHECK(run.results[1].status == trade_status::ok);
  CHECK(run.results[2].status == trade_status::ok);
}
