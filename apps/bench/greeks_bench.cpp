// What Greeks cost: the MonteCarloMultiGPU European book (8192 calls x 262,144 paths by
// default) priced alone, with in-pass Greeks (--greeks), and with a naive bump-and-reprice
// (base, spot +-1%, vol +-1 point, rate +-1 bp, maturity - 1 day: 8 engine calls, the same
// seed, so common random numbers). Times are engine calls (median of REPS after a warm-up),
// engines built beforehand; in_pass_ratio_paired is the median ratio with the two calls back
// to back in each round (paired_ratio). Also checks every option's delta and vega against
// Black-Scholes (aggregate z over the book). A benchmark app, not a test.
#include "mcprice/black_scholes.hpp"
#include "mcprice/engine.hpp"
#include "mcprice/memory/device_info.hpp"
#include "synthetic_book.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

using namespace mcprice::bench;

// Sum of (mc - reference) over the root sum of squared std errors, for one Greek.
struct agreement {
  double sum_diff{0.0};
  double sum_var{0.0};
  void add(double mc, double se, double ref)
  {
    sum_diff += mc - ref;
    sum_var += se * se;
  }
  [[nodiscard]] double z() const { return sum_var > 0.0 ? sum_diff / std::sqrt(sum_var) : 0.0; }
};

// The Asian workload: 16 arithmetic Asian calls (strikes 85-115) on one asset, S = 100,
// vol 20%, r = 5%, 252 fixings ending at T = 1, with the geometric control variate (the
// default), `paths` each.
mcprice::market_data asian_market(const market_bump& b = {})
{
  mcprice::asset a;
  a.name = "A";
  a.spot = 100.0 * b.spot_scale;
  a.vol = mcprice::vol_curve::flat(0.2 + b.vol_shift);
  return mcprice::market_data(mcprice::rate_curve::flat(0.05 + b.rate_shift), {a}, {}, "asian-bench");
}

mcprice::portfolio asian_book(std::int64_t paths, double roll = 0.0)
{
  mcprice::portfolio book;
  for (int i = 0; i < 16; ++i) {
    mcprice::trade t;
    t.id = "asian" + std::to_string(i);
    t.product = mcprice::product_kind::asian;
    t.underlyings = {"A"};
    t.strike = 85.0 + 2.0 * i;
    t.maturity = 1.0 - roll;
    for (int k = 1; k <= 252; ++k) t.fixing_times.push_back(k / 252.0 - roll);
    t.paths = paths;
    book.trades.push_back(std::move(t));
  }
  return book;
}

// Price only, in-pass Greeks and bump-and-reprice of one book; prints one JSON line.
template <typename MakeMarket, typename MakeBook>
void measure(const char* name, const std::string& device, bool cpu, int reps, MakeMarket make_market,
             MakeBook make_book)
{
  mcprice::engine_options eo;
  eo.backend = cpu ? mcprice::backend_choice::cpu : mcprice::backend_choice::gpu;
  mcprice::engine const plain(make_market(market_bump{}), eo);
  eo.greeks = true;
  mcprice::engine const with_greeks(make_market(market_bump{}), eo);
  eo.greeks = false;
  std::vector<mcprice::engine> scenarios;
  for (auto const& b : {market_bump{1.01, 0, 0}, market_bump{0.99, 0, 0}, market_bump{1.0, 0.01, 0},
                        market_bump{1.0, -0.01, 0}, market_bump{1.0, 0, 1e-4}, market_bump{1.0, 0, -1e-4}}) {
    scenarios.emplace_back(make_market(b), eo);
  }
  auto const book = make_book(0.0);
  auto const rolled = make_book(1.0 / 365.0);
  mcprice::pricing_run run;
  double const price_ms = 1e3 * timed(reps, [&] { run = plain.price(book); });
  double const greeks_ms = 1e3 * timed(reps, [&] { run = with_greeks.price(book); });
  double const bump_ms = 1e3 * timed(reps, [&] {
                           run = plain.price(book);
                           for (auto const& e : scenarios) run = e.price(book);
                           run = plain.price(rolled);
                         });
  std::printf(
      "{\"bench\":\"%s\",\"device\":\"%s\",\"price_only_ms\":%.4f,\"in_pass_greeks_ms\":%.4f,"
      "\"in_pass_ratio\":%.3f,\"bump_and_reprice_ms\":%.4f,\"bump_ratio\":%.3f}\n",
      name, device.c_str(), price_ms, greeks_ms, greeks_ms / price_ms, bump_ms, bump_ms / price_ms);
  std::fflush(stdout);
}

}  // namespace

// Usage: mcprice-greeks-bench [OPTIONS=8192] [PATHS=262144] [gpu|cpu] [REPS=5] [ASIAN_PATHS=1048576]
// (the Asian book's 16 trades take ASIAN_PATHS each; 0 skips it)
int main(int argc, char** argv)
{
  int const n = argc > 1 ? std::atoi(argv[1]) : 8192;
  std::int64_t const paths = argc > 2 ? std::atoll(argv[2]) : 262144;
  bool const cpu = argc > 3 && std::string(argv[3]) == "cpu";
  int const reps = argc > 4 ? std::atoi(argv[4]) : 5;
  std::int64_t const asian_paths = argc > 5 ? std::atoll(argv[5]) : 1 << 20;
  if (!cpu && mcprice::usable_device_count() == 0) {
    std::fprintf(stderr, "mcprice-greeks-bench: no GPU; run with 'N PATHS cpu' to measure the CPU backend\n");
    return 1;
  }
  auto const opts = sample_options(n);
  auto const book = book_for(opts, 0, opts.size(), paths);
  mcprice::engine_options eo;
  eo.backend = cpu ? mcprice::backend_choice::cpu : mcprice::backend_choice::gpu;
  mcprice::engine const plain(market_for(opts), eo);
  eo.greeks = true;
  mcprice::engine const with_greeks(market_for(opts), eo);
  eo.greeks = false;

  // Bump-and-reprice: the scenario engines are built before timing (their markets differ).
  constexpr double spot_h = 0.01;
  constexpr double vol_h = 0.01;
  constexpr double rate_h = 1e-4;
  constexpr double day = 1.0 / 365.0;
  std::vector<mcprice::engine> scenarios;
  for (auto const& b : {market_bump{1.0 + spot_h, 0, 0}, market_bump{1.0 - spot_h, 0, 0}, market_bump{1.0, vol_h, 0},
                        market_bump{1.0, -vol_h, 0}, market_bump{1.0, 0, rate_h}, market_bump{1.0, 0, -rate_h}}) {
    scenarios.emplace_back(market_for(opts, b), eo);
  }
  auto rolled = book;
  for (auto& t : rolled.trades) t.maturity -= day;

  mcprice::pricing_run base_run;
  mcprice::pricing_run greek_run;
  double const price_ms = 1e3 * timed(reps, [&] { base_run = plain.price(book); });
  double const greeks_ms = 1e3 * timed(reps, [&] { greek_run = with_greeks.price(book); });
  double const paired = paired_ratio(
      reps, [&] { base_run = plain.price(book); }, [&] { greek_run = with_greeks.price(book); });
  std::vector<mcprice::pricing_run> bumped(scenarios.size() + 1);
  double const bump_ms = 1e3 * timed(reps, [&] {
                           base_run = plain.price(book);
                           for (std::size_t s = 0; s < scenarios.size(); ++s) bumped[s] = scenarios[s].price(book);
                           bumped.back() = plain.price(rolled);
                         });

  agreement delta;
  agreement vega;
  agreement gamma;
  double worst_bump_delta = 0.0;
  for (std::size_t i = 0; i < opts.size(); ++i) {
    auto const& o = opts[i];
    auto const ref =
        mcprice::black_scholes::greeks(mcprice::black_scholes::european_kind::call, {o.s, o.k, o.t, rate, 0.0, vol});
    auto const& g = greek_run.results[i].greeks;
    if (!g) continue;
    delta.add(g->delta.value, g->delta.std_error, ref.delta);
    gamma.add(g->gamma.value, g->gamma.std_error, ref.gamma);
    vega.add(g->vega.value, g->vega.std_error, ref.vega);
    double const fd_delta = (bumped[0].results[i].price - bumped[1].results[i].price) / (2.0 * spot_h * o.s);
    worst_bump_delta = std::max(worst_bump_delta, std::abs(fd_delta - g->delta.value));
  }
  std::printf(
      "{\"bench\":\"greeks_cost\",\"device\":\"%s\",\"options\":%d,\"paths_per_option\":%lld,"
      "\"price_only_ms\":%.4f,\"in_pass_greeks_ms\":%.4f,\"in_pass_ratio\":%.3f,\"in_pass_ratio_paired\":%.3f,"
      "\"bump_and_reprice_ms\":%.4f,\"bump_ratio\":%.3f,\"delta_aggregate_z\":%.3f,"
      "\"gamma_aggregate_z\":%.3f,\"vega_aggregate_z\":%.3f,\"worst_delta_gap_to_bumped\":%.3g}\n",
      cpu ? "CPU" : mcprice::query_device(0).name.c_str(), n, static_cast<long long>(paths), price_ms, greeks_ms,
      greeks_ms / price_ms, paired, bump_ms, bump_ms / price_ms, delta.z(), gamma.z(), vega.z(), worst_bump_delta);
  std::fflush(stdout);
  if (asian_paths > 0) {
    measure("greeks_cost_asian_252", cpu ? "CPU" : mcprice::query_device(0).name, cpu, reps, asian_market,
            [&](double roll) { return asian_book(asian_paths, roll); });
  }
  return 0;
}
