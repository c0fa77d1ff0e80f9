// Greeks on the GPU: Black-Scholes' analytic values, the CPU's numbers, unchanged prices and
// bits that do not depend on how the work was scheduled.
#include "catch.hpp"
#include "greek_checks.hpp"
#include "mcprice/engine.hpp"
#include "mcprice/market_reader.hpp"
#include "pricing_cases.hpp"

#include <cmath>
#include <cstring>

using namespace mcprice;
using namespace mcprice::testing;

namespace {

engine_options greek_options(backend_choice b, std::int64_t paths)
{
  engine_options o;
  o.backend = b;
  o.paths = paths;
  o.greeks = true;
  return o;
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

std::vector<std::pair<greek_estimate, const char*>> listed(const trade_greeks& g)
{
  return {{g.delta, "delta"}, {g.gamma, "gamma"}, {g.vega, "vega"}, {g.theta, "theta"}, {g.rho, "rho"}};
}

void check_same_greek_bits(const pricing_run& a, const pricing_run& b)
{
  REQUIRE(a.results.size() == b.results.size());
  for (std::size_t i = 0; i < a.results.size(); ++i) {
    REQUIRE(a.results[i].greeks);
    REQUIRE(b.results[i].greeks);
    auto const x = listed(*a.results[i].greeks);
    auto const y = listed(*b.results[i].greeks);
    for (std::size_t k = 0; k < x.size(); ++k) {
      INFO(a.results[i].id << " " << x[k].second);
      CHECK(same_bits(x[k].first.value, y[k].first.value));
      CHECK(same_bits(x[k].first.std_error, y[k].first.std_error));
    }
    CHECK(same_bits(a.results[i].price, b.results[i].price));
  }
}

}  // namespace

TEST_CASE("GPU Greeks agree with Black-Scholes within 4 standard errors", "[gpu]")
{
  auto const book = reference_book();
  engine const gpu(test_market(), greek_options(backend_choice::gpu, 4'000'000));
  REQUIRE(gpu.backend() == backend_kind::gpu);
  check_greeks_against_black_scholes(book, test_market(), gpu.price(book));
}

TEST_CASE("GPU and CPU Greeks for the same seed agree to a small fraction of their std error", "[gpu]")
{
  // The same normals up to the device's sin/cos rounding: a path within rounding of the strike
  // may flip, which moves an estimate by about 1/sqrt(paths) of its std error.
  auto const book = reference_book();
  auto const gpu = engine(test_market(), greek_options(backend_choice::gpu, 300'000)).price(book);
  auto const cpu = engine(test_market(), greek_options(backend_choice::cpu, 300'000)).price(book);
  for (std::size_t i = 0; i < book.trades.size(); ++i) {
    auto const g = listed(*gpu.results[i].greeks);
    auto const c = listed(*cpu.results[i].greeks);
    for (std::size_t k = 0; k < g.size(); ++k) {
      INFO(book.trades[i].id << " " << g[k].second << ": gpu " << g[k].first.value << ", cpu " << c[k].first.value
                             << " +- " << c[k].first.std_error);
      CHECK(std::abs(g[k].first.value - c[k].first.value) <=
            0.05 * c[k].first.std_error + 1e-5 * std::abs(c[k].first.value) + 1e-12);
    }
  }
}

TEST_CASE("GPU: asking for Greeks leaves every price's bits unchanged", "[gpu]")
{
  auto const book = reference_book();
  auto options = greek_options(backend_choice::gpu, 2'000'001);
  auto const with = engine(test_market(), options).price(book);
  options.greeks = false;
  auto const without = engine(test_market(), options).price(book);
  for (std::size_t i = 0; i < book.trades.size(); ++i) {
    INFO(book.trades[i].id);
    CHECK(same_bits(with.results[i].price, without.results[i].price));
    CHECK(same_bits(with.results[i].std_error, without.results[i].std_error));
  }
}

TEST_CASE("GPU Greeks are bit-identical across job caps, streams, grids and reruns", "[gpu]")
{
  auto const book = reference_book();
  auto const base_options = greek_options(backend_choice::gpu, 18'000'001);  // two segments a trade
  auto const base = engine(test_market(), base_options).price(book);
  check_same_greek_bits(base, engine(test_market(), base_options).price(book));
  for (std::size_t cap : {std::size_t{1} << 20, std::size_t{4} << 20}) {
    auto o = base_options;
    o.job_cap_bytes = cap;
    o.streams = 3;
    INFO("job cap " << cap);
    check_same_greek_bits(base, engine(test_market(), o).price(book));
  }
  auto o = base_options;
  o.grid_blocks = 7;
  o.streams = 1;
  check_same_greek_bits(base, engine(test_market(), o).price(book));
}

namespace {

portfolio asian_book()
{
  auto asian = [](std::string id, option_type type, averaging_kind avg, strike_kind strike, std::int64_t fixings) {
    trade t = make_trade(std::move(id), product_kind::asian, type, "FLAT", 100, 1.0);
    t.averaging = avg;
    t.strike_type = strike;
    if (strike == strike_kind::floating) t.strike.reset();
    t.fixings = fixings;
    return t;
  };
  portfolio book;
  book.trades = {asian("arith-252", option_type::call, averaging_kind::arithmetic, strike_kind::fixed, 252),
                 asian("geo-put", option_type::put, averaging_kind::geometric, strike_kind::fixed, 12),
                 asian("arith-float", option_type::call, averaging_kind::arithmetic, strike_kind::floating, 24)};
  book.trades[0].fixing_times = {0.0};  // today's spot as a fixing too, then 252 more
  for (int i = 1; i <= 252; ++i) book.trades[0].fixing_times.push_back(i / 252.0);
  trade barrier = make_trade("barrier", product_kind::barrier, option_type::call, "CURVE", 50, 1.0);
  barrier.barrier = 65;
  barrier.barrier_type = barrier_kind::up_out;
  book.trades.push_back(barrier);
  trade touch = make_trade("touch", product_kind::touch, option_type::one_touch, "FLAT", 100, 0.5);
  touch.strike.reset();
  touch.barrier = 115;
  touch.barrier_type = barrier_kind::up;
  touch.pay_at = payment_time::hit;
  book.trades.push_back(touch);
  trade lookback = make_trade("lookback", product_kind::lookback, option_type::put, "FLAT", 100, 1.0);
  lookback.strike_type = strike_kind::floating;
  lookback.strike.reset();
  book.trades.push_back(lookback);
  for (auto& t : book.trades) t.steps = 48;
  return book;
}

// Prices `book` with Greeks on the GPU and the CPU, on the GPU without Greeks and on the GPU with
// other execution settings, and checks: every Greek estimate within `se_fraction` of a std error
// of the CPU's (the devices' sin/cos/log roundings can flip a path at a threshold; a second
// difference of payoffs that scale with S0 is float noise of order 1e-8: an absolute 1e-6),
// every price's bits unchanged by Greeks, every Greek's bits unchanged by the settings.
void check_gpu_greeks(const market_data& market, const portfolio& book, double se_fraction)
{
  auto const gpu = engine(market, greek_options(backend_choice::gpu, 100'001)).price(book);
  auto const cpu = engine(market, greek_options(backend_choice::cpu, 100'001)).price(book);
  auto plain = greek_options(backend_choice::gpu, 100'001);
  plain.greeks = false;
  auto const without = engine(market, plain).price(book);
  auto options = greek_options(backend_choice::gpu, 100'001);
  options.streams = 1;
  options.grid_blocks = 5;
  options.job_cap_bytes = std::size_t{4} << 20;
  auto const again = engine(market, options).price(book);
  for (std::size_t i = 0; i < book.trades.size(); ++i) {
    INFO(book.trades[i].id << " " << gpu.results[i].message);
    REQUIRE(gpu.results[i].greeks);
    auto const g = gpu.results[i].greeks->all();
    auto const c = cpu.results[i].greeks->all();
    auto const y = again.results[i].greeks->all();
    REQUIRE(g.size() == c.size());
    for (std::size_t k = 0; k < g.size(); ++k) {
      INFO("estimate " << k << ": gpu " << g[k].value << ", cpu " << c[k].value << " +- " << c[k].std_error);
      CHECK(std::abs(g[k].value - c[k].value) <= se_fraction * c[k].std_error + 1e-5 * std::abs(c[k].value) + 1e-6);
      CHECK(same_bits(g[k].value, y[k].value));
      CHECK(same_bits(g[k].std_error, y[k].std_error));
    }
    CHECK(same_bits(gpu.results[i].price, without.results[i].price));
    CHECK(same_bits(gpu.results[i].std_error, without.results[i].std_error));
  }
}

}  // namespace

TEST_CASE("GPU path Greeks: the CPU's numbers, unchanged prices, bits across settings", "[gpu]")
{
  // Scenario differences of barrier-like payoffs can flip on a path within float rounding of the
  // barrier, each flip a larger share of a std error than a European's: 0.2.
  check_gpu_greeks(test_market(), asian_book(), 0.2);
}

TEST_CASE("GPU multi-asset Greeks: the CPU's numbers, unchanged prices, bits across settings", "[gpu]")
{
  portfolio book;
  trade basket = make_trade("basket", product_kind::basket, option_type::call, "FLAT", 70, 1.5);
  basket.underlyings = {"FLAT", "CURVE", "HIGH"};
  basket.weights = {0.3, 0.8, 2.0};
  trade best = make_trade("best-of", product_kind::best_of, option_type::put, "FLAT", 60, 0.75);
  best.underlyings = {"FLAT", "CURVE"};
  best.weights = {0.5, 1.0};
  book.trades = {basket, best};
  check_gpu_greeks(test_market(), book, 0.2);
}

TEST_CASE("GPU Heston Greeks: the CPU's numbers, unchanged prices, bits across settings", "[gpu]")
{
  auto const market = parse_market(R"({"rate": 0.03, "assets": {"H": {"spot": 100, "dividend_yield": 0.01,
      "model": "heston", "heston": {"v0": 0.04, "kappa": 1.5, "theta": 0.05, "xi": 0.6, "rho": -0.7}}}})",
                                   "heston-gpu-greeks");
  portfolio book;
  book.trades = {make_trade("call", product_kind::vanilla, option_type::call, "H", 105, 1.0),
                 make_trade("asian", product_kind::asian, option_type::put, "H", 100, 0.5),
                 make_trade("barrier", product_kind::barrier, option_type::call, "H", 100, 1.0)};
  book.trades[1].fixings = 12;
  book.trades[2].barrier = 125;
  book.trades[2].barrier_type = barrier_kind::up_out;
  for (auto& t : book.trades) t.steps = 48;
  // The QE step's logarithms and divisions differ in the last bits between the devices, so the
  // scenarios' differences drift a little further than a GBM path's: 0.25 std errors.
  check_gpu_greeks(market, book, 0.25);
}
