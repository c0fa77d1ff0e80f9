// A STAC-A2-style workload (not an audited STAC result): an American worst-of put on correlated
// Heston assets, priced by least squares, with theta, rho, per-asset delta, gamma and model vega,
// every cross gamma and correlation vega (docs/benchmarks.md describes it exactly).
//   small: 5 assets, 25,000 paths, 252 steps and exercise dates over 1 year;
//   large: 10 assets, 100,000 paths, 1,260 steps and exercise dates over 5 years.
// Cold: engine construction (device set-up, market upload) plus the first pricing; warm: the
// median of REPS further pricings on that engine (after one more warm-up). A benchmark app, not a test.
// The cold time is split into its phases in the JSON: the CUDA context (made first, on its own,
// when MCPRICE_STAC_CONTEXT_FIRST is set; else inside the construction), the engine's
// construction, and the first pricing, whose timeline MCPRICE_STAC_TIMELINE=first prints;
// MCPRICE_STAC_LAZY loads each kernel at its first launch instead of all at construction.
// `lsm-put` instead prices Longstaff and Schwartz's put (S = 36, K = 40, sigma 0.2, T = 1, 50
// dates, 2^20 pricing and 2^20 calibration paths, no Greeks): the PyTorch peer's case
// (apps/bench/peers/lsm_peer.py).
// `per-greek` as the fourth word walks each Greek's paths on its own (the same bits; the way the
// GPU ran them before spot legs were walked together), to measure what sharing the walk saves.
//   mcprice-stac-bench [REPS] [gpu|cpu] [small|large|both|lsm-put] [shared|per-greek]
#include "bench_devices.hpp"
#include "mcprice/engine.hpp"
#include "synthetic_book.hpp"
#include "testing/engine_knobs.hpp"

#include <cuda_runtime_api.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

struct workload {
  const char* name;
  int assets;
  std::int64_t paths;
  std::int64_t steps;
  double maturity;
};

// Heston parameters vary by asset so no two are exchangeable; correlation 0.5 between every
// pair of log-spot drivers; r = 2%, no dividends.
mcprice::market_data stac_market(int n)
{
  std::vector<mcprice::asset> assets;
  for (int i = 0; i < n; ++i) {
    mcprice::asset a;
    a.name = "H" + std::to_string(i);
    a.spot = 100.0;
    a.model = mcprice::model_kind::heston;
    a.heston = {0.03 + 0.005 * (i % 5), 1.0 + 0.25 * (i % 4), 0.04 + 0.0025 * (i % 3), 0.3 + 0.05 * (i % 4),
                -0.5 - 0.05 * (i % 3)};
    assets.push_back(std::move(a));
  }
  std::vector<double> corr(static_cast<std::size_t>(n * n), 0.5);
  for (int i = 0; i < n; ++i) corr[static_cast<std::size_t>(i * n + i)] = 1.0;
  return {mcprice::rate_curve::flat(0.02), std::move(assets), std::move(corr), "stac-a2-style"};
}

mcprice::portfolio stac_book(const workload& w)
{
  mcprice::trade t;
  t.id = std::string("worst-of-") + w.name;
  t.product = mcprice::product_kind::worst_of;
  t.type = mcprice::option_type::put;
  for (int i = 0; i < w.assets; ++i) t.underlyings.push_back("H" + std::to_string(i));
  t.strike = 100.0;
  t.maturity = w.maturity;
  t.exercise = mcprice::exercise_style::american;
  t.exercise_dates = w.steps;
  t.steps = w.steps;
  t.paths = w.paths;
  mcprice::portfolio book;
  book.trades.push_back(std::move(t));
  return book;
}

void run(const workload& w, int reps, bool cpu, bool shared_walks)
{
  using clock = std::chrono::steady_clock;
  auto const market = stac_market(w.assets);
  auto const book = stac_book(w);
  mcprice::engine_options o;
  o.backend = cpu ? mcprice::backend_choice::cpu : mcprice::backend_choice::gpu;
  o.greeks = true;
  o.paths = w.paths;
  o.steps = w.steps;
  mcprice::detail::engine_knobs knobs;
  knobs.shared_greek_walks = shared_walks;
  // MCPRICE_STAC_CALIBRATION_PER_STEP set: a launch a backward step instead of one for all (the
  // same bits), to measure what the one launch saves.
  knobs.calibration_one_launch = std::getenv("MCPRICE_STAC_CALIBRATION_PER_STEP") == nullptr;
  o.timeline = std::getenv("MCPRICE_STAC_TIMELINE") != nullptr;
  // MCPRICE_STAC_LAZY set: each kernel loaded at its first launch instead of every kernel at
  // construction (engine_options::preload_kernels), to compare the cold phases both ways.
  o.preload_kernels = std::getenv("MCPRICE_STAC_LAZY") == nullptr;
  mcprice::bench::devices_from_environment(o);
  auto const seconds_since = [](clock::time_point t) { return std::chrono::duration<double>(clock::now() - t).count(); };
  auto const start = clock::now();
  double context = 0.0;
  if (!cpu && std::getenv("MCPRICE_STAC_CONTEXT_FIRST") != nullptr) {
    cudaFree(nullptr);  // the primary context, which the engine then finds made
    context = seconds_since(start);
  }
  auto const constructing = clock::now();
  mcprice::engine const e(market, o, knobs);
  double const construction = seconds_since(constructing);
  auto const pricing = clock::now();
  auto first = e.price(book);
  double const first_pricing = seconds_since(pricing);
  double const cold = seconds_since(start);
  // MCPRICE_STAC_TIMELINE set: where a pricing's time went, on stderr ("first": the cold one,
  // else the last warm one).
  auto const print_timeline = [](const mcprice::pricing_run& run) {
    for (auto const& span : run.summary.timeline) {
      std::fprintf(stderr, "%-12s %s job %zu  %8.3f - %8.3f ms\n", span.what.c_str(), span.device ? "gpu " : "host",
                   span.index, 1e3 * span.begin_seconds, 1e3 * span.end_seconds);
    }
  };
  const char* timeline = std::getenv("MCPRICE_STAC_TIMELINE");
  bool const first_timeline = timeline != nullptr && std::string(timeline) == "first";
  if (first_timeline) print_timeline(first);
  double const warm = reps > 0 ? mcprice::bench::timed(reps, [&] { first = e.price(book); }) : 0.0;
  if (timeline != nullptr && !first_timeline) print_timeline(first);
  auto const& r = first.results.front();
  std::size_t greeks = 0;
  if (r.greeks) greeks = r.greeks->all().size();
  std::printf(
      "{\"workload\": \"%s\", \"backend\": \"%s\", \"assets\": %d, \"paths\": %lld, \"steps\": %lld, "
      "\"exercise_dates\": %lld, \"status\": \"%s\", \"price\": %.6f, \"std_error\": %.6f, \"greeks\": %zu, "
      "\"delta0\": %.5f, \"delta0_se\": %.5f, \"cold_s\": %.4f, \"context_s\": %.4f, \"construction_s\": %.4f, "
      "\"first_pricing_s\": %.4f, \"warm_median_s\": %.4f, "
      "\"reps\": %d, \"greek_walks\": \"%s\", \"kernels\": \"%s\", \"results_digest\": \"%016llx\"}\n",
      w.name, e.device_name().c_str(), w.assets, static_cast<long long>(w.paths), static_cast<long long>(w.steps),
      static_cast<long long>(w.steps), r.status == mcprice::trade_status::ok ? "ok" : r.message.c_str(), r.price,
      r.std_error, greeks, r.greeks ? r.greeks->deltas[0].value : 0.0, r.greeks ? r.greeks->deltas[0].std_error : 0.0,
      cold, context, construction, first_pricing, warm, reps, knobs.shared_greek_walks ? "shared" : "per-greek",
      o.preload_kernels ? "preloaded" : "at first launch",
      static_cast<unsigned long long>(mcprice::bench::results_digest(first)));
  std::fflush(stdout);
}

}  // namespace

void lsm_put(int reps, bool cpu)
{
  mcprice::asset a;
  a.name = "S";
  a.spot = 36.0;
  a.vol = mcprice::vol_curve::flat(0.2);
  mcprice::market_data const market(mcprice::rate_curve::flat(0.06), {a}, {}, "lsm-put");
  mcprice::trade t;
  t.id = "ls-put";
  t.type = mcprice::option_type::put;
  t.underlyings = {"S"};
  t.strike = 40.0;
  t.maturity = 1.0;
  t.exercise = mcprice::exercise_style::american;
  t.exercise_dates = 50;
  mcprice::portfolio book;
  book.trades.push_back(t);
  mcprice::engine_options o;
  o.backend = cpu ? mcprice::backend_choice::cpu : mcprice::backend_choice::gpu;
  o.paths = std::int64_t{1} << 20;
  o.calibration_paths = o.paths;
  mcprice::engine const e(market, o);
  auto run = e.price(book);
  double const warm = mcprice::bench::timed(reps, [&] { run = e.price(book); });
  auto const& r = run.results.front();
  std::printf(
      "{\"workload\": \"lsm-put\", \"backend\": \"%s\", \"paths\": %lld, \"calibration_paths\": %lld, "
      "\"dates\": 50, \"price\": %.5f, \"std_error\": %.5f, \"warm_median_s\": %.5f}\n",
      e.device_name().c_str(), static_cast<long long>(o.paths), static_cast<long long>(o.calibration_paths), r.price,
      r.std_error, warm);
}

int main(int argc, char** argv)
{
  int const reps = argc > 1 ? std::atoi(argv[1]) : 5;
  bool const cpu = argc > 2 && std::string(argv[2]) == "cpu";
  std::string const which = argc > 3 ? argv[3] : "both";
  bool const shared_walks = !(argc > 4 && std::string(argv[4]) == "per-greek");
  workload const small{"small", 5, 25'000, 252, 1.0};
  workload const large{"large", 10, 100'000, 1'260, 5.0};
  try {
    if (which == "lsm-put") {
      lsm_put(reps, cpu);
      return 0;
    }
    if (which != "large") run(small, reps, cpu, shared_walks);
    if (which != "small") run(large, reps, cpu, shared_walks);
  } catch (const std::exception& ex) {
    std::fprintf(stderr, "mcprice-stac-bench: %s\n", ex.what());
    return 1;
  }
  return 0;
}
