// Heston and multi-asset trades on the GPU backend: closed forms, agreement with the CPU
// backend for the same seed, and bits that do not depend on streams or grid size.
#include "catch.hpp"
#include "heston_reference.hpp"
#include "mcprice/engine.hpp"
#include "mcprice/market_reader.hpp"
#include "stulz_reference.hpp"

#include <cmath>
#include <cstring>

using namespace mcprice;
using namespace mcprice::testing;

namespace {

pricing_run price_with(const market_data& m, const std::vector<trade>& trades, backend_choice b, std::int64_t paths,
                       std::int64_t steps, int streams = 0, int grid = 0)
{
  engine_options o;
  o.backend = b;
  o.paths = paths;
  o.steps = steps;
  if (streams > 0) o.streams = streams;
  o.grid_blocks = grid;
  portfolio book;
  book.trades = trades;
  return engine(m, o).price(book);
}

bool same_bits(const pricing_run& a, const pricing_run& b)
{
  for (std::size_t i = 0; i < a.results.size(); ++i) {
    if (std::memcmp(&a.results[i].price, &b.results[i].price, sizeof(double)) != 0) return false;
    if (std::memcmp(&a.results[i].std_error, &b.results[i].std_error, sizeof(double)) != 0) return false;
  }
  return a.results.size() == b.results.size();
}

// GPU and CPU evaluate the same paths; float rounding of exp/log may differ by an ulp, and a
// path near a branch (QE's psi switch, a strike) may land on the other side. Far below 1 std error.
void check_agree(const trade_result& g, const trade_result& c)
{
  INFO(g.id << ": gpu " << g.price << " +- " << g.std_error << ", cpu " << c.price << " " << g.message << c.message);
  REQUIRE(g.status == trade_status::ok);
  REQUIRE(c.status == trade_status::ok);
  CHECK(std::abs(g.price - c.price) <= 0.05 * c.std_error + 1e-5 * std::abs(c.price));
}

void check_reference(const trade_result& r, double reference, double allowance)
{
  INFO(r.id << ": gpu " << r.price << " +- " << r.std_error << ", reference " << reference << " " << r.message);
  REQUIRE(r.status == trade_status::ok);
  CHECK(std::abs(r.price - reference) <= 4.0 * r.std_error + allowance);
}

}  // namespace

TEST_CASE("GPU Heston (QE): semi-analytic prices, CPU agreement and reproducible bits", "[gpu]")
{
  heston_case const c{100, 100, 1, 0, 0, 0.0175, 1.5768, 0.0398, 0.5751, -0.5711};
  auto const m = heston_market(c);
  std::vector<trade> const book = {heston_trade_of("call", product_kind::vanilla, option_type::call, 100, 1),
                                   heston_trade_of("put", product_kind::vanilla, option_type::put, 100, 1)};
  auto const gpu = price_with(m, book, backend_choice::gpu, 2'000'000, 100);
  constexpr double qe_allowance = 0.01;  // QE's bias at 100 steps, as in the host suite
  check_reference(gpu.results[0], heston_call(c), qe_allowance);
  check_reference(gpu.results[1], heston_put(c), qe_allowance);

  auto const g = price_with(m, book, backend_choice::gpu, 100'000, 100);
  auto const cpu = price_with(m, book, backend_choice::cpu, 100'000, 100);
  for (std::size_t i = 0; i < book.size(); ++i) check_agree(g.results[i], cpu.results[i]);
  CHECK(same_bits(g, price_with(m, book, backend_choice::gpu, 100'000, 100, 1, 7)));

  // The parameter edges of the host suite, where the GPU's quick divisions and roots meet the
  // QE step's limits (kappa = 0, theta = 0, v0 = 0, rho = +-1, huge vol of vol, short maturity).
  for (auto const& e : heston_edge_cases()) {
    auto const r =
        price_with(heston_market(e), {heston_trade_of("call", product_kind::vanilla, option_type::call, e.k, e.t)},
                   backend_choice::gpu, 1'000'000, 100);
    INFO("kappa " << e.kappa << " theta " << e.theta << " v0 " << e.v0 << " rho " << e.rho << " T " << e.t);
    check_reference(r.results[0], heston_call(e), qe_allowance);
  }
}

TEST_CASE("GPU best-of and worst-of: Stulz's closed form, CPU agreement and reproducible bits", "[gpu]")
{
  auto const m = parse_market(R"({"rate": 0.04, "assets": {
      "A": {"spot": 100, "dividend_yield": 0.01, "vol": 0.3},
      "B": {"spot": 95, "dividend_yield": 0.02, "vol": 0.2}},
      "correlation": {"A,B": -0.4}})",
                              "stulz");
  two_assets const p{100, 95, 0.01, 0.02, 0.3, 0.2, -0.4, 0.04, 1.5};
  std::vector<trade> book;
  std::vector<double> refs;
  for (bool max : {true, false}) {
    for (option_type type : {option_type::call, option_type::put}) {
      trade t;
      t.id = std::string(max ? "best" : "worst") + (type == option_type::call ? "-call" : "-put");
      t.product = max ? product_kind::best_of : product_kind::worst_of;
      t.type = type;
      t.underlyings = {"A", "B"};
      t.strike = 100.0;
      t.maturity = 1.5;
      book.push_back(t);
      refs.push_back(type == option_type::call ? stulz_call(p, 100.0, max) : stulz_put(p, 100.0, max));
    }
  }
  auto const gpu = price_with(m, book, backend_choice::gpu, 4'000'000, 1);
  for (std::size_t i = 0; i < book.size(); ++i) check_reference(gpu.results[i], refs[i], 1e-6 * refs[i]);

  auto const g = price_with(m, book, backend_choice::gpu, 200'000, 1);
  auto const cpu = price_with(m, book, backend_choice::cpu, 200'000, 1);
  for (std::size_t i = 0; i < book.size(); ++i) check_agree(g.results[i], cpu.results[i]);
  CHECK(same_bits(g, price_with(m, book, backend_choice::gpu, 200'000, 1, 1, 7)));
}

TEST_CASE("GPU Heston and multi-asset trades take the two-phase route with the fused route's bits", "[gpu]")
{
  heston_case const c{100, 100, 1, 0.02, 0.01, 0.04, 1.5, 0.04, 0.6, -0.7};
  auto const hm = heston_market(c);
  trade barrier = heston_trade_of("down-out", product_kind::barrier, option_type::call, 100, 1);
  barrier.barrier = 85.0;
  barrier.barrier_type = barrier_kind::down_out;
  trade asian = heston_trade_of("asian", product_kind::asian, option_type::put, 100, 1);
  asian.fixings = 12;
  trade lookback = heston_trade_of("lookback", product_kind::lookback, option_type::call, 100, 1);
  lookback.strike.reset();
  lookback.strike_type = strike_kind::floating;
  trade touch = heston_trade_of("touch", product_kind::touch, option_type::one_touch, 100, 1);
  touch.strike.reset();
  touch.barrier = 120.0;
  touch.barrier_type = barrier_kind::up;
  touch.pay_at = payment_time::hit;
  std::vector<trade> const heston_book = {heston_trade_of("call", product_kind::vanilla, option_type::call, 100, 1),
                                          barrier, asian, lookback, touch};

  auto const bm =
      parse_market(R"({"rate": 0.03, "assets": {"A": {"spot": 100, "vol": 0.3}, "B": {"spot": 90, "vol": 0.2},
      "C": {"spot": 80, "dividend_yield": 0.02, "vol": 0.25}}, "correlation": {"A,B": 0.5, "A,C": 0.2, "B,C": -0.1}})",
                   "abc");
  std::vector<trade> basket_book;
  for (product_kind p : {product_kind::basket, product_kind::best_of, product_kind::worst_of, product_kind::spread}) {
    trade t;
    t.id = "multi-" + std::to_string(static_cast<int>(p));
    t.product = p;
    t.type = option_type::call;
    t.underlyings =
        p == product_kind::spread ? std::vector<std::string>{"A", "B"} : std::vector<std::string>{"A", "B", "C"};
    t.strike = p == product_kind::spread ? 5.0 : 90.0;
    t.maturity = 1.0;
    basket_book.push_back(t);
  }
  for (bool antithetic : {true, false}) {
    for (int book = 0; book < 2; ++book) {
      engine_options o;
      o.backend = backend_choice::gpu;
      o.paths = 100'001;
      o.steps = 48;
      o.antithetic = antithetic;
      portfolio p;
      p.trades = book == 0 ? heston_book : basket_book;
      auto const& m = book == 0 ? hm : bm;
      auto const fused = engine(m, o).price(p);
      o.route = kernel_route::two_phase;
      auto const two_phase = engine(m, o).price(p);
      INFO((book == 0 ? "heston" : "multi-asset") << ", antithetic " << antithetic);
      for (auto const& r : two_phase.results) {
        INFO(r.id << " " << r.message);
        CHECK(r.status == trade_status::ok);
      }
      CHECK(same_bits(fused, two_phase));
    }
  }
}

TEST_CASE("GPU: a book of every family, priced side by side, gives each trade its bits alone", "[gpu]")
{
  auto const m =
      parse_market(R"({"rate": 0.03, "assets": {"A": {"spot": 100, "vol": 0.3}, "B": {"spot": 90, "vol": 0.2},
      "H": {"spot": 100, "model": "heston", "heston": {"v0": 0.04, "kappa": 1.5, "theta": 0.04, "xi": 0.5, "rho": -0.6}}},
      "correlation": {"A,B": 0.4}})",
                   "mixed");
  trade call;
  call.id = "call";
  call.product = product_kind::vanilla;
  call.type = option_type::call;
  call.underlyings = {"A"};
  call.strike = 100.0;
  call.maturity = 1.0;
  trade asian = call;
  asian.id = "asian";
  asian.product = product_kind::asian;
  asian.fixings = 12;
  trade heston = call;
  heston.id = "heston";
  heston.underlyings = {"H"};
  trade best = call;
  best.id = "best";
  best.product = product_kind::best_of;
  best.underlyings = {"A", "B"};
  // A Heston barrier puts the book's Heston Europeans on the kernel for every product; alone
  // they take the Europeans-only kernel: the bits must not tell.
  trade heston_barrier = heston;
  heston_barrier.id = "heston-barrier";
  heston_barrier.product = product_kind::barrier;
  heston_barrier.barrier = 85.0;
  heston_barrier.barrier_type = barrier_kind::down_out;
  portfolio book;
  book.trades = {call, asian, heston, best, call, heston, heston_barrier};
  book.trades[4].id = "call-2";
  book.trades[5].id = "heston-2";
  engine_options o;
  o.backend = backend_choice::gpu;
  o.paths = 200'000;
  o.steps = 24;
  engine const eng(m, o);
  auto const all = eng.price(book);
  for (std::size_t i = 0; i < book.trades.size(); ++i) {
    portfolio alone;
    alone.trades = {book.trades[i]};
    auto const single = eng.price(alone);
    INFO(book.trades[i].id << " " << all.results[i].message);
    CHECK(all.results[i].status == trade_status::ok);
    CHECK(std::memcmp(&all.results[i].price, &single.results[0].price, sizeof(double)) == 0);
    CHECK(std::memcmp(&all.results[i].std_error, &single.results[0].std_error, sizeof(double)) == 0);
  }
}
