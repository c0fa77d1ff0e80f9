// A desk's nightly structured book (issue 35): worst-of-3 autocallables on three correlated
// local-vol assets (Dupire grids from skewed implied surfaces), 5 years, quarterly observations
// with step-down calls, memory coupons, a knock-in at 60% watched daily (1,260 steps), each trade
// with its own levels and coupon. Prices the book without Greeks and with them (per-asset deltas,
// gammas, vegas, the cross gammas, correlation vega, theta, rho) and reports the wall times and
// the share of path-steps the paths need (expected life / maturity, from the redemption
// probabilities: the work the early stop can save). A benchmark app, not a test.
// Usage: mcprice-autocall-book [TRADES (1000)] [PATHS (100000)] [plain] [no-greeks] [gbm|heston|mixed] [double] [cpu]
//   plain: no antithetic pairs (as the torch.compile peer draws its paths);
//   double: --precision double (local-vol, Heston and mixed worst-ofs then run on the GPU
//   backend's host, all cores);
//   no-greeks: the book without Greeks only;
//   gbm: the assets are GBM at their at-the-money vols (the GBM worst-of's kernels);
//   heston: the assets are Heston with variances at their at-the-money vols (the Heston worst-of's
//   kernels);
//   mixed: A local vol, B Heston, C Merton jumps on its at-the-money vol (the Heston worst-of's
//   kernels, each asset on its own model).
#include "mcprice/engine.hpp"
#include "mcprice/market_reader.hpp"
#include "mcprice/memory/device_info.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace mcprice;

namespace {

// An implied surface with a skew that flattens with maturity and a little smile, on strikes
// from 40% to 200% of spot (free of static arbitrage: the market checks it).
std::string surface_json(double spot, double atm)
{
  std::vector<double> const expiries = {0.25, 0.5, 1, 2, 3, 5};
  std::vector<double> const moneyness = {0.4, 0.55, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2, 1.35, 1.6, 2.0};
  std::string s = "{\"expiries\": [";
  for (std::size_t i = 0; i < expiries.size(); ++i) s += (i ? ", " : "") + std::to_string(expiries[i]);
  s += "], \"strikes\": [";
  for (std::size_t j = 0; j < moneyness.size(); ++j) s += (j ? ", " : "") + std::to_string(spot * moneyness[j]);
  s += "], \"vols\": [";
  for (std::size_t i = 0; i < expiries.size(); ++i) {
    s += i ? ", [" : "[";
    for (std::size_t j = 0; j < moneyness.size(); ++j) {
      double const k = std::log(moneyness[j]);
      double const vol = atm - 0.12 * k / std::sqrt(1.0 + expiries[i]) + 0.04 * k * k;
      s += (j ? ", " : "") + std::to_string(vol);
    }
    s += "]";
  }
  return s + "]}";
}

enum class book_model { local_vol, gbm, heston, mixed };

const char* name_of(book_model m)
{
  switch (m) {
    case book_model::gbm: return "gbm";
    case book_model::heston: return "heston";
    case book_model::mixed: return "mixed";
    default: return "local-vol";
  }
}

// An asset's model: local vol from its surface, GBM at the surface's at-the-money vol, or Heston
// whose variance starts and reverts to that vol's square, with a skew of its own.
std::string model_json(double spot, double atm, book_model m)
{
  if (m == book_model::gbm) return "\"vol\": " + std::to_string(atm);
  if (m == book_model::heston) {
    std::string const v = std::to_string(atm * atm);
    return "\"model\": \"heston\", \"heston\": {\"v0\": " + v + ", \"kappa\": 1.5, \"theta\": " + v +
           ", \"xi\": 0.5, \"rho\": -0.6}";
  }
  return "\"model\": \"local_vol\", \"vol_surface\": " + surface_json(spot, atm);
}

market_data book_market(book_model model)
{
  // The mixed book: each asset on a model of its own.
  book_model const a = model == book_model::mixed ? book_model::local_vol : model;
  book_model const b = model == book_model::mixed ? book_model::heston : model;
  book_model const c = model == book_model::mixed ? book_model::gbm : model;
  std::string const jumps = model == book_model::mixed ? R"(, "jumps": {"intensity": 0.5, "mean": -0.08, "vol": 0.1})" : "";
  std::string const json =
      R"({"discount_curve": {"times": [1, 2, 5], "zero_rates": [0.03, 0.031, 0.033]}, "assets": {
      "A": {"spot": 100, "dividend_yield": 0.02, )" +
      model_json(100.0, 0.25, a) + R"(}, "B": {"spot": 80, "dividend_yield": 0.01, )" + model_json(80.0, 0.3, b) +
      R"(}, "C": {"spot": 120, "dividend_yield": 0.0, )" + model_json(120.0, 0.2, c) + jumps + R"(}},
    "correlation": {"A,B": 0.6, "A,C": 0.5, "B,C": 0.55}})";
  return parse_market(json, "autocall-book");
}

// Trade i: calls from 100% stepping down 1% a quarter less 2% x (i mod 5), coupons of
// 1.5% + 0.1% x (i mod 10) above 80% with memory, a daily knock-in at 60%; every third trade is
// seasoned (initial levels 5% above or below today's spots).
trade book_trade(int i)
{
  trade t;
  t.id = "note-" + std::to_string(i);
  t.product = product_kind::autocallable;
  t.underlyings = {"A", "B", "C"};
  t.maturity = 5.0;
  for (int j = 1; j <= 20; ++j) {
    t.observation_times.push_back(0.25 * j);
    t.autocall_barrier.push_back(1.0 - 0.01 * (j - 1) - 0.02 * (i % 5));
  }
  t.coupon = 0.015 + 0.001 * (i % 10);
  t.coupon_barrier = {0.8};
  t.memory = true;
  t.ki_barrier = 0.6;
  t.ki_monitoring = knock_in_monitoring::continuous;
  if (i % 3 == 1) t.initial_levels = {105.0, 84.0, 126.0};
  if (i % 3 == 2) t.initial_levels = {95.0, 76.0, 114.0};
  return t;
}

struct book_stats {
  double mean_price{0.0};
  double mean_std_error{0.0};
  double needed_share{0.0};  // mean expected life / maturity
  int failed{0};
};

book_stats stats_of(const pricing_run& run)
{
  book_stats s;
  for (auto const& r : run.results) {
    if (r.status != trade_status::ok) {
      if (s.failed++ == 0) std::fprintf(stderr, "%s: %s\n", r.id.c_str(), r.message.c_str());
      continue;
    }
    s.mean_price += r.price;
    s.mean_std_error += r.std_error;
    if (r.redemption) s.needed_share += r.redemption->expected_life / 5.0;
  }
  auto const n = static_cast<double>(run.results.size());
  s.mean_price /= n;
  s.mean_std_error /= n;
  s.needed_share /= n;
  return s;
}

// One note priced first, so that the timed call pays no module loading or first allocations.
void warm_up(const engine& eng, const trade& t)
{
  portfolio one;
  one.trades = {t};
  (void)eng.price(one);
}

}  // namespace

int main(int argc, char** argv)
{
  int const trades = argc > 1 ? std::atoi(argv[1]) : 1000;
  std::int64_t const paths = argc > 2 ? std::atoll(argv[2]) : 100000;
  bool plain = false;
  bool cpu = false;
  bool no_greeks = false;
  bool dbl = false;
  book_model model = book_model::local_vol;
  for (int a = 3; a < argc; ++a) {
    if (std::string(argv[a]) == "gbm") model = book_model::gbm;
    if (std::string(argv[a]) == "heston") model = book_model::heston;
    if (std::string(argv[a]) == "mixed") model = book_model::mixed;
    plain = plain || std::string(argv[a]) == "plain";
    cpu = cpu || std::string(argv[a]) == "cpu";
    no_greeks = no_greeks || std::string(argv[a]) == "no-greeks";
    dbl = dbl || std::string(argv[a]) == "double";
  }
  if (!cpu && usable_device_count() == 0) {
    std::fprintf(stderr, "mcprice-autocall-book: no GPU; add 'cpu' to measure the CPU backend\n");
    return 1;
  }
  market_data const market = book_market(model);
  portfolio book;
  for (int i = 0; i < trades; ++i) book.trades.push_back(book_trade(i));
  for (bool const greeks : {false, true}) {
    if (greeks && no_greeks) break;
    engine_options o;
    o.backend = cpu ? backend_choice::cpu : backend_choice::gpu;
    o.paths = paths;
    o.steps = 1260;
    o.greeks = greeks;
    o.antithetic = !plain;
    o.precision = dbl ? path_precision::float64 : path_precision::float32;
    engine const eng(market, o);
    warm_up(eng, book.trades.front());
    auto const t0 = std::chrono::steady_clock::now();
    pricing_run const run = eng.price(book);
    double const wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    book_stats const s = stats_of(run);
    std::printf(
        "{\"bench\":\"worst-of-3-%s-book%s%s\",\"trades\":%d,\"paths\":%lld,\"steps\":1260,\"antithetic\":%s,"
        "\"wall_s\":%.4f,\"price_s\":%.4f,\"path_steps_per_s\":%.4g,\"path_steps_needed_share\":%.4f,"
        "\"mean_price\":%.6f,\"mean_std_error\":%.6f,\"failed\":%d}\n",
        name_of(model), greeks ? "-greeks" : "", dbl ? "-double" : "", trades, static_cast<long long>(paths),
        plain ? "false" : "true", wall,
        run.summary.price_seconds, static_cast<double>(trades) * static_cast<double>(paths) * 1260.0 / wall,
        s.needed_share, s.mean_price, s.mean_std_error, s.failed);
    std::fflush(stdout);
  }
  return 0;
}
