// Throughput of the engine on books of many small trades: stream counts, concurrent callers
// and a 100,000-trade request, with where the time goes. A benchmark app, not a test.
// Usage: mcprice-throughput [streams|concurrency|large|paths|models|all] [cpu]
#include "mcprice/engine.hpp"
#include "mcprice/market_reader.hpp"
#include "mcprice/memory/device_info.hpp"
#include "synthetic_book.hpp"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <future>
#include <string>
#include <vector>

using namespace mcprice;
using namespace mcprice::bench;

namespace {

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point t0)
{
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

engine make(const std::vector<option_spec>& opts, bool cpu, int streams)
{
  engine_options o;
  o.backend = cpu ? backend_choice::cpu : backend_choice::gpu;
  o.streams = streams;
  return engine(market_for(opts), o);
}

void print_run(const char* what, int streams, const pricing_run& run, double wall)
{
  auto const& s = run.summary;
  std::printf("{\"bench\":\"%s\",\"streams\":%d,\"trades\":%zu,\"paths\":%lld,\"wall_s\":%.5f,\"trades_per_s\":%.4g,"
              "\"paths_per_s\":%.4g,\"jobs\":%zu,\"chunks\":%zu,\"prepare_s\":%.5f,\"price_s\":%.5f,\"results_s\":%.5f}\n",
              what, streams, s.trades, static_cast<long long>(s.paths), wall, static_cast<double>(s.trades) / wall,
              static_cast<double>(s.paths) / wall, s.jobs, s.chunks, s.prepare_seconds, s.price_seconds, s.results_seconds);
  std::fflush(stdout);
}

// Median of `reps` timed calls after one warm-up.
template <typename F>
double timed(int reps, F&& f)
{
  f();
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    auto const t0 = clock_type::now();
    f();
    t.push_back(seconds_since(t0));
  }
  return median(t);
}

void streams_bench(bool cpu)
{
  int const n = cpu ? 1000 : 10000;
  auto const opts = sample_options(n);
  auto const book = book_for(opts, 0, opts.size(), 16384);
  for (int streams : {1, 2, 4, 8}) {
    auto const eng = make(opts, cpu, streams);
    pricing_run run;
    double const wall = timed(5, [&] { run = eng.price(book); });
    print_run("many_small_trades", streams, run, wall);
  }
}

void concurrency_bench(bool cpu)
{
  int const n = cpu ? 800 : 8000;
  int const threads = 8;
  auto const opts = sample_options(n);
  auto const eng = make(opts, cpu, 0);
  auto const whole = book_for(opts, 0, opts.size(), 16384);
  pricing_run single;
  double const one = timed(5, [&] { single = eng.price(whole); });
  print_run("one_thread_all_trades", 0, single, one);

  std::vector<portfolio> parts;
  std::size_t const per = opts.size() / threads;
  for (int i = 0; i < threads; ++i) parts.push_back(book_for(opts, per * i, per, 16384));
  std::vector<pricing_run> runs(threads);
  double const eight = timed(5, [&] {
    std::vector<std::future<void>> f;
    for (int i = 0; i < threads; ++i) f.push_back(std::async(std::launch::async, [&, i] { runs[i] = eng.price(parts[i]); }));
    for (auto& x : f) x.get();
  });
  bool same = true;
  for (int i = 0; i < threads; ++i) {
    for (std::size_t k = 0; k < per; ++k) {
      same = same && std::memcmp(&runs[i].results[k].price, &single.results[per * i + k].price, sizeof(double)) == 0;
    }
  }
  std::printf("{\"bench\":\"eight_threads_share\",\"threads\":%d,\"trades\":%zu,\"wall_s\":%.5f,\"trades_per_s\":%.4g,"
              "\"vs_one_thread\":%.3f,\"bit_identical_to_one_thread\":%s}\n",
              threads, opts.size(), eight, static_cast<double>(opts.size()) / eight, one / eight, same ? "true" : "false");
}

// One arithmetic Asian with 252 fixings (the roofline's fused Asian and the PyTorch peers'
// workload), and a continuous down-and-out call on 64 steps: path-steps per second.
void path_bench(bool cpu)
{
  auto const market = parse_market(R"({"rate": 0.05, "assets": {"X": {"spot": 100, "vol": 0.2}}})", "bench");
  trade asian;
  asian.id = "asian252";
  asian.product = product_kind::asian;
  asian.type = option_type::call;
  asian.underlyings = {"X"};
  asian.strike = 100.0;
  asian.maturity = 1.0;
  asian.fixings = 252;
  trade barrier = asian;
  barrier.id = "down-out-64";
  barrier.product = product_kind::barrier;
  barrier.fixings.reset();
  barrier.barrier = 85.0;
  barrier.barrier_type = barrier_kind::down_out;
  barrier.steps = 64;
  for (bool antithetic : {false, true}) {
    for (const trade& t : {asian, barrier}) {
      engine_options o;
      o.backend = cpu ? backend_choice::cpu : backend_choice::gpu;
      o.antithetic = antithetic;
      o.control_variates = false;  // the same estimator as the peers and the roofline
      o.paths = cpu ? (1 << 16) : (1 << 22);
      portfolio book;
      book.trades = {t};
      engine const eng(market, o);
      pricing_run run;
      double const wall = timed(5, [&] { run = eng.price(book); });
      double const steps = t.product == product_kind::asian ? 252.0 : 64.0;
      auto const& r = run.results[0];
      std::printf("{\"bench\":\"%s\",\"antithetic\":%s,\"paths\":%lld,\"wall_s\":%.5f,\"price_s\":%.5f,"
                  "\"path_steps_per_s\":%.4g,\"price\":%.6f,\"std_error\":%.6f}\n",
                  t.id.c_str(), antithetic ? "true" : "false", static_cast<long long>(r.paths), wall,
                  run.summary.price_seconds, static_cast<double>(r.paths) * steps / wall, r.price, r.std_error);
      std::fflush(stdout);
    }
  }
}

// The PyTorch peers' Heston case (a European call, 252 steps; QE here, full-truncation Euler
// there) and a two-asset best-of call: path-steps (asset-steps for the best-of) per second.
void model_bench(bool cpu)
{
  auto const heston_market = parse_market(R"({"rate": 0.0, "assets": {"H": {"spot": 100, "model": "heston",
      "heston": {"v0": 0.0175, "kappa": 1.5768, "theta": 0.0398, "xi": 0.5751, "rho": -0.5711}}}})", "heston");
  auto const pair_market = parse_market(R"({"rate": 0.04, "assets": {"A": {"spot": 100, "vol": 0.3},
      "B": {"spot": 95, "vol": 0.2}}, "correlation": {"A,B": 0.5}})", "pair");
  trade heston;
  heston.id = "heston252";
  heston.product = product_kind::vanilla;
  heston.type = option_type::call;
  heston.underlyings = {"H"};
  heston.strike = 100.0;
  heston.maturity = 1.0;
  trade best = heston;
  best.id = "best-of-2";
  best.product = product_kind::best_of;
  best.underlyings = {"A", "B"};
  for (bool antithetic : {false, true}) {
    for (const trade& t : {heston, best}) {
      bool const is_heston = t.id == heston.id;
      engine_options o;
      o.backend = cpu ? backend_choice::cpu : backend_choice::gpu;
      o.antithetic = antithetic;
      o.steps = 252;
      o.paths = cpu ? (1 << 14) : (is_heston ? (1 << 21) : (1 << 24));
      portfolio book;
      book.trades = {t};
      engine const eng(is_heston ? heston_market : pair_market, o);
      pricing_run run;
      double const wall = timed(5, [&] { run = eng.price(book); });
      double const steps = is_heston ? 252.0 : 2.0;
      auto const& r = run.results[0];
      std::printf("{\"bench\":\"%s\",\"antithetic\":%s,\"paths\":%lld,\"wall_s\":%.5f,\"price_s\":%.5f,"
                  "\"%s\":%.4g,\"price\":%.6f,\"std_error\":%.6f}\n",
                  t.id.c_str(), antithetic ? "true" : "false", static_cast<long long>(r.paths), wall,
                  run.summary.price_seconds, is_heston ? "path_steps_per_s" : "asset_paths_per_s",
                  static_cast<double>(r.paths) * steps / wall, r.price, r.std_error);
      std::fflush(stdout);
    }
  }
}

void large_bench(bool cpu)
{
  int const n = cpu ? 20000 : 100000;
  auto const opts = sample_options(n);
  auto const eng = make(opts, cpu, 0);
  auto const book = book_for(opts, 0, opts.size(), 4096);
  pricing_run run;
  double const wall = timed(3, [&] { run = eng.price(book); });
  print_run("large_book", eng.options().streams, run, wall);
}

}  // namespace

int main(int argc, char** argv)
{
  std::string const mode = argc > 1 ? argv[1] : "all";
  bool const cpu = argc > 2 && std::string(argv[2]) == "cpu";
  if (!cpu && usable_device_count() == 0) {
    std::fprintf(stderr, "mcprice-throughput: no GPU; add 'cpu' to measure the CPU backend\n");
    return 1;
  }
  if (mode == "streams" || mode == "all") streams_bench(cpu);
  if (mode == "concurrency" || mode == "all") concurrency_bench(cpu);
  if (mode == "large" || mode == "all") large_bench(cpu);
  if (mode == "paths" || mode == "all") path_bench(cpu);
  if (mode == "models" || mode == "all") model_bench(cpu);
  return 0;
}
