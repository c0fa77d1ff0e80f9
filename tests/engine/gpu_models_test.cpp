// Jumps (Merton, Bates), local volatility and mixed-model baskets on the GPU backend: the CPU
// backend's numbers (to float rounding) on every single-asset product, Philox and Sobol, with
// Greeks where the model has them, and worst-ofs on GBM, on local vol beside GBM, with Heston
// or jump assets and mixing local vol with them;
// the two routes' bits equal; the lean kernels' bits the full ones'; and the Bates closed form.
#include "catch.hpp"
#include "heston_reference.hpp"
#include "mcprice/engine.hpp"
#include "mcprice/market_reader.hpp"
#include "result_bits.hpp"
#include "trade_on.hpp"

#include <cmath>
#include <string>
#include <utility>
#include <vector>

using namespace mcprice;
using namespace mcprice::testing;

namespace {

market_data jump_market()
{
  return parse_market(R"({"rate": 0.03, "assets": {
      "L": {"spot": 100, "model": "local_vol", "vol_surface": {"expiries": [0.5, 1, 2], "strikes": [60, 80, 90, 100, 110, 120, 150],
            "vols": [[0.32, 0.27, 0.24, 0.21, 0.2, 0.21, 0.24], [0.3, 0.27, 0.24, 0.22, 0.21, 0.21, 0.23],
                     [0.29, 0.26, 0.24, 0.225, 0.215, 0.21, 0.22]]}},
      "G": {"spot": 60, "vol": 0.25},
      "G2": {"spot": 80, "vol": 0.3, "dividend_yield": 0.02},
      "K": {"spot": 100, "model": "heston", "heston": {"v0": 0.05, "kappa": 2, "theta": 0.04, "xi": 0.6, "rho": -0.5}},
      "J": {"spot": 100, "vol": 0.2, "dividend_yield": 0.01, "jumps": {"intensity": 1.5, "mean": -0.12, "vol": 0.2}},
      "H": {"spot": 100, "model": "heston", "heston": {"v0": 0.04, "kappa": 1.5, "theta": 0.05, "xi": 0.5, "rho": -0.7},
            "jumps": {"intensity": 0.8, "mean": -0.08, "vol": 0.12}}},
      "correlation": {"G,G2": 0.5, "K,G2": 0.4}})",
                      "jumps");
}

trade on(const std::string& asset, const std::string& id, product_kind p, option_type type, double strike)
{
  return trade_on(asset, asset + "-" + id, p, type, strike, 1.0);
}

trade cliquet_on(const std::string& asset)
{
  trade t = on(asset, "cliquet", product_kind::cliquet, option_type::call, 0);
  t.strike.reset();
  t.fixings = 12;
  t.local_floor = -0.03;
  t.local_cap = 0.04;
  t.global_floor = 0.01;
  return t;
}

std::vector<trade> book_on(const std::string& asset)
{
  trade asian = on(asset, "asian", product_kind::asian, option_type::call, 100);
  asian.fixings = 12;
  trade down_out = on(asset, "down-out", product_kind::barrier, option_type::call, 100);
  down_out.barrier = 80;
  down_out.barrier_type = barrier_kind::down_out;
  trade touch = on(asset, "touch", product_kind::touch, option_type::one_touch, 0);
  touch.strike.reset();
  touch.barrier = 85;
  touch.barrier_type = barrier_kind::down;
  touch.payout = 10;
  trade lookback = on(asset, "lookback", product_kind::lookback, option_type::call, 0);
  lookback.strike.reset();
  lookback.strike_type = strike_kind::floating;
  return {on(asset, "call", product_kind::vanilla, option_type::call, 105),
          on(asset, "put", product_kind::vanilla, option_type::put, 90),
          asian,
          down_out,
          touch,
          lookback,
          autocallable_on(asset),
          cliquet_on(asset)};
}

// autocallable_on(first) as a worst-of of first and second, seasoned at `levels` where given.
trade worst_of_on(const std::string& first, const std::string& second, std::vector<double> levels)
{
  trade t = autocallable_on(first);
  t.id = first + "-" + second + "-worst-of";
  t.underlyings = {first, second};
  t.initial_levels = std::move(levels);
  return t;
}

// A vanilla struck at 100 with early exercise on `dates` dates.
trade exercised(const std::string& asset, const std::string& id, option_type type, exercise_style style, int dates)
{
  trade t = on(asset, id, product_kind::vanilla, type, 100);
  t.exercise = style;
  t.exercise_dates = dates;
  return t;
}

// A call on several assets (named after the first), with weights where given.
trade on_several(std::vector<std::string> assets, const std::string& id, product_kind p, double strike,
                 std::vector<double> weights = {})
{
  trade t = on(assets.front(), id, p, option_type::call, strike);
  t.underlyings = std::move(assets);
  t.weights = std::move(weights);
  return t;
}

// Jumps and Bates on every single-asset product and on the exercise walk, local vol on every one
// (an American and a mixed basket too), and a Heston/GBM spread.
std::vector<trade> jump_book()
{
  auto book = book_on("J");
  for (const char* a : {"H", "L"}) {
    auto const more = book_on(a);
    book.insert(book.end(), more.begin(), more.end());
  }
  book.push_back(on_several({"K", "G"}, "spread", product_kind::spread, 30));
  // Local vol on the exercise walk: an American put, a basket beside GBM and Heston assets.
  book.push_back(exercised("L", "american", option_type::put, exercise_style::american, 16));
  book.push_back(on_several({"L", "G", "K"}, "basket", product_kind::basket, 80, {0.4, 0.3, 0.3}));
  // Jumps on the exercise walk: a Merton American, a Bates Bermudan, a basket of a Merton and a
  // GBM asset, and a spread of a Bates and a Heston one.
  book.push_back(exercised("J", "american", option_type::put, exercise_style::american, 16));
  book.push_back(exercised("H", "bermudan", option_type::call, exercise_style::bermudan, 8));
  book.push_back(on_several({"J", "G2"}, "basket", product_kind::basket, 90));
  book.push_back(on_several({"H", "K"}, "spread", product_kind::spread, 0));
  // Autocallables: on one GBM asset; worst-ofs on GBM, and with a local-vol, a Heston or a jump
  // asset (Merton beside GBM, Bates beside Heston: the Heston worst-of walk), and mixing them.
  book.push_back(autocallable_on("G"));
  book.push_back(worst_of_on("G", "G2", {62, 78}));
  book.push_back(worst_of_on("L", "G2", {102, 78}));
  book.push_back(worst_of_on("K", "G2", {98, 80}));
  book.push_back(worst_of_on("J", "G2", {100, 78}));
  book.push_back(worst_of_on("H", "K", {}));
  // Mixed worst-ofs: a local-vol asset beside a Heston or a Merton one (the Heston walk).
  book.push_back(worst_of_on("L", "K", {}));
  book.push_back(worst_of_on("J", "L", {104, 99}));
  return book;
}

pricing_run run_on(backend_choice b, engine_options o, std::vector<trade> trades = jump_book())
{
  o.backend = b;
  o.steps = 64;
  portfolio book;
  book.trades = std::move(trades);
  return engine(jump_market(), o).price(book);
}

// The trades of jump_book that the lean kernels take when no other trade of their request needs
// the full ones: local-vol products but the autocallable and the cliquet, and walks without jumps.
std::vector<trade> lean_book()
{
  auto book = book_on("L");
  book.resize(6);  // the autocallable and the cliquet are last
  book.push_back(on_several({"K", "G"}, "spread", product_kind::spread, 30));
  book.push_back(exercised("L", "american", option_type::put, exercise_style::american, 16));
  book.push_back(on_several({"L", "G", "K"}, "basket", product_kind::basket, 80, {0.4, 0.3, 0.3}));
  return book;
}

const trade_result& result_of(const pricing_run& run, const std::string& id)
{
  for (auto const& r : run.results) {
    if (r.id == id) return r;
  }
  FAIL("no result for " << id);
  return run.results.front();
}

void check_agree(const pricing_run& gpu, const pricing_run& cpu)
{
  REQUIRE(gpu.results.size() == cpu.results.size());
  for (std::size_t i = 0; i < cpu.results.size(); ++i) {
    auto const& g = gpu.results[i];
    auto const& c = cpu.results[i];
    INFO(g.id << ": gpu " << g.price << " +- " << g.std_error << ", cpu " << c.price << " +- " << c.std_error << " "
              << g.message << c.message);
    REQUIRE(g.status == trade_status::ok);
    REQUIRE(c.status == trade_status::ok);
    // A path within float rounding of a barrier or strike may land on its other side.
    CHECK(std::abs(g.price - c.price) <= 0.2 * c.std_error + 2e-5 * std::abs(c.price) + 1e-6);
    // Autocallables' outcomes on the same paths: a path within rounding of a barrier may move.
    REQUIRE(g.redemption.has_value() == c.redemption.has_value());
    if (c.redemption) {
      REQUIRE(g.redemption->probabilities.size() == c.redemption->probabilities.size());
      for (std::size_t j = 0; j < c.redemption->probabilities.size(); ++j)
        CHECK(std::abs(g.redemption->probabilities[j] - c.redemption->probabilities[j]) <= 1e-3);
      CHECK(std::abs(g.redemption->knock_in_probability - c.redemption->knock_in_probability) <= 1e-3);
    }
    if (c.greeks) {
      REQUIRE(g.greeks);
      // Every estimate (a worst-of's per-asset ones too), on the same paths.
      auto const gg = g.greeks->all();
      auto const cg = c.greeks->all();
      REQUIRE(gg.size() == cg.size());
      for (std::size_t j = 0; j < cg.size(); ++j) {
        INFO("Greek " << j << ": gpu " << gg[j].value << ", cpu " << cg[j].value << " +- " << cg[j].std_error);
        CHECK(std::abs(gg[j].value - cg[j].value) <= 0.3 * cg[j].std_error + 1e-5 * std::abs(cg[j].value) + 1e-4);
      }
    }
  }
}

}  // namespace

TEST_CASE("GPU jump, local vol and mixed-model prices agree with the CPU backend's, Philox and Sobol", "[gpu]")
{
  engine_options o;
  o.paths = 1 << 15;
  check_agree(run_on(backend_choice::gpu, o), run_on(backend_choice::cpu, o));
  o.greeks = true;
  check_agree(run_on(backend_choice::gpu, o), run_on(backend_choice::cpu, o));
  o.greeks = false;
  o.rng = rng_kind::sobol;
  o.rqmc_replicates = 8;
  check_agree(run_on(backend_choice::gpu, o), run_on(backend_choice::cpu, o));
}

TEST_CASE("GPU jump and local vol trades: the two-phase route, streams and grids give the fused bits", "[gpu]")
{
  for (rng_kind r : {rng_kind::pseudo, rng_kind::sobol}) {
    engine_options o;
    o.paths = 1 << 15;
    o.rng = r;
    o.rqmc_replicates = 8;
    auto const fused = run_on(backend_choice::gpu, o);
    o.route = kernel_route::two_phase;
    CHECK(same_result_bits(fused, run_on(backend_choice::gpu, o)));
    o.route = kernel_route::automatic;
    o.streams = 1;
    o.grid_blocks = 7;
    CHECK(same_result_bits(fused, run_on(backend_choice::gpu, o)));
  }
}

TEST_CASE("GPU lean kernels (no structured branches, no jump walk) give a trade the full kernels' bits", "[gpu]")
{
  for (bool greeks : {false, true}) {
    engine_options o;
    o.paths = 1 << 14;
    o.greeks = greeks;
    auto const full = run_on(backend_choice::gpu, o);
    auto const lean = run_on(backend_choice::gpu, o, lean_book());
    int with_greeks = 0;
    for (auto const& r : lean.results) {
      auto const& f = result_of(full, r.id);
      INFO(r.id << (greeks ? " with Greeks" : "") << ": lean " << r.price << ", full " << f.price);
      REQUIRE(r.status == trade_status::ok);
      CHECK(same_bits(r.price, f.price));
      CHECK(same_bits(r.std_error, f.std_error));
      // Local vol on the exercise walk has no Greeks (docs/greeks.md): both runs say so alike.
      REQUIRE(r.greeks.has_value() == f.greeks.has_value());
      if (r.greeks) {
        ++with_greeks;
        CHECK(same_bits(r.greeks->delta.value, f.greeks->delta.value));
        CHECK(same_bits(r.greeks->vega.value, f.greeks->vega.value));
      }
    }
    CHECK((with_greeks > 0) == greeks);
  }
}

TEST_CASE("GPU Bates Europeans match the characteristic function", "[gpu]")
{
  heston_case const c{100, 100, 1, 0.05, 0.0, 0.04, 2.0, 0.04, 0.3, -0.7, 3.0, -0.2, 0.25};
  engine_options o;
  o.backend = backend_choice::gpu;
  o.paths = 1 << 20;
  o.steps = 100;
  portfolio book;
  book.trades = {heston_trade_of("call", product_kind::vanilla, option_type::call, c.k, c.t)};
  auto const run = engine(heston_market(c), o).price(book);
  auto const& r = run.results[0];
  double const ref = heston_call(c);
  INFO("gpu " << r.price << " +- " << r.std_error << ", reference " << ref);
  REQUIRE(r.status == trade_status::ok);
  CHECK(std::abs(r.price - ref) <= 4 * r.std_error + 0.01);
}

TEST_CASE("GPU local-vol grids live in the market buffers, uploaded once with the market", "[gpu]")
{
  market_data const m = jump_market();
  std::size_t points = 0;
  for (auto const& a : m.assets()) {
    if (a.model != model_kind::local_vol) continue;
    points += a.local_vol.vols.size();
    for (auto const& g : a.local_vol_bumped) points += g.vols.size();
  }
  REQUIRE(points > 0);
  engine_options o;
  o.backend = backend_choice::gpu;
  o.paths = 1 << 12;
  engine e(m, o);
  auto const before = e.memory();
  REQUIRE(before);
  // Every point's float and double (value, slope) pair, beside the flat market.
  CHECK(before->market_bytes >= points * 2 * (sizeof(float) + sizeof(double)));
  portfolio book;
  book.trades = jump_book();
  auto const run = e.price(book);
  for (auto const& r : run.results) CHECK(r.status == trade_status::ok);
  CHECK(e.memory()->market_bytes == before->market_bytes);
}
