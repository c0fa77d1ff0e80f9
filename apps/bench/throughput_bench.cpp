// Throughput of the engine on books of many small trades: stream counts, concurrent callers
// and a 100,000-trade request, with where the time goes. A benchmark app, not a test.
// Usage: mcprice-throughput [streams|concurrency|large|paths|models|jumps|autocall|precision|all|soak] [cpu] [SECONDS]
// soak (not in all): 16 threads price different books through one engine for SECONDS (default
// 60), each checking every result against its first run's bits; reports rounds, mismatches and
// the scratch pool's reserved bytes over time (they must not grow once warm).
#include "mcprice/engine.hpp"
#include "mcprice/market_reader.hpp"
#include "mcprice/memory/device_info.hpp"
#include "synthetic_book.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <future>
#include <string>
#include <thread>
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
  std::printf(
      "{\"bench\":\"%s\",\"streams\":%d,\"trades\":%zu,\"paths\":%lld,\"wall_s\":%.5f,\"trades_per_s\":%.4g,"
      "\"paths_per_s\":%.4g,\"jobs\":%zu,\"chunks\":%zu,\"prepare_s\":%.5f,\"price_s\":%.5f,\"results_s\":%.5f}\n",
      what, streams, s.trades, static_cast<long long>(s.paths), wall, static_cast<double>(s.trades) / wall,
      static_cast<double>(s.paths) / wall, s.jobs, s.chunks, s.prepare_seconds, s.price_seconds, s.results_seconds);
  std::fflush(stdout);
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
    for (int i = 0; i < threads; ++i)
      f.push_back(std::async(std::launch::async, [&, i] { runs[i] = eng.price(parts[i]); }));
    for (auto& x : f) x.get();
  });
  bool same = true;
  for (int i = 0; i < threads; ++i) {
    for (std::size_t k = 0; k < per; ++k) {
      same = same && std::memcmp(&runs[i].results[k].price, &single.results[per * i + k].price, sizeof(double)) == 0;
    }
  }
  std::printf(
      "{\"bench\":\"eight_threads_share\",\"threads\":%d,\"trades\":%zu,\"wall_s\":%.5f,\"trades_per_s\":%.4g,"
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
      std::printf(
          "{\"bench\":\"%s\",\"antithetic\":%s,\"paths\":%lld,\"wall_s\":%.5f,\"price_s\":%.5f,"
          "\"path_steps_per_s\":%.4g,\"price\":%.6f,\"std_error\":%.6f}\n",
          t.id.c_str(), antithetic ? "true" : "false", static_cast<long long>(r.paths), wall, run.summary.price_seconds,
          static_cast<double>(r.paths) * steps / wall, r.price, r.std_error);
      std::fflush(stdout);
    }
  }
}

// The PyTorch peers' Heston case (a European call, 252 steps; QE here, full-truncation Euler
// there) and a two-asset best-of call: path-steps (asset-steps for the best-of) per second.
void model_bench(bool cpu)
{
  auto const heston_market = parse_market(R"({"rate": 0.0, "assets": {"H": {"spot": 100, "model": "heston",
      "heston": {"v0": 0.0175, "kappa": 1.5768, "theta": 0.0398, "xi": 0.5751, "rho": -0.5711}}}})",
                                          "heston");
  auto const pair_market = parse_market(R"({"rate": 0.04, "assets": {"A": {"spot": 100, "vol": 0.3},
      "B": {"spot": 95, "vol": 0.2}}, "correlation": {"A,B": 0.5}})",
                                        "pair");
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
      // MCPRICE_BENCH_TIMELINE set: where the last call's time went, on stderr.
      o.timeline = std::getenv("MCPRICE_BENCH_TIMELINE") != nullptr;
      engine const eng(is_heston ? heston_market : pair_market, o);
      pricing_run run;
      double const wall = timed(5, [&] { run = eng.price(book); });
      for (auto const& span : run.summary.timeline) {
        std::fprintf(stderr, "%s %-14s %s job %zu  %8.3f - %8.3f ms\n", t.id.c_str(), span.what.c_str(),
                     span.device ? "gpu " : "host", span.index, 1e3 * span.begin_seconds, 1e3 * span.end_seconds);
      }
      double const steps = is_heston ? 252.0 : 2.0;
      auto const& r = run.results[0];
      std::printf(
          "{\"bench\":\"%s\",\"antithetic\":%s,\"paths\":%lld,\"wall_s\":%.5f,\"price_s\":%.5f,"
          "\"%s\":%.4g,\"price\":%.6f,\"std_error\":%.6f}\n",
          t.id.c_str(), antithetic ? "true" : "false", static_cast<long long>(r.paths), wall, run.summary.price_seconds,
          is_heston ? "path_steps_per_s" : "asset_paths_per_s", static_cast<double>(r.paths) * steps / wall, r.price,
          r.std_error);
      std::fflush(stdout);
    }
  }
}

// What the new models cost (issue 34): path-steps per second of a Bates European against the
// Heston European it extends (the peers' case, 252 steps, conditional Monte Carlo both), and of
// Merton and local-vol path products against their GBM selves (an arithmetic Asian of 252
// fixings, its control off in all, and a down-and-out of 252 steps), each a median of 5 calls.
void jump_bench(bool cpu)
{
  auto const market = parse_market(R"({"rate": 0.02, "assets": {
      "H": {"spot": 100, "model": "heston",
            "heston": {"v0": 0.0175, "kappa": 1.5768, "theta": 0.0398, "xi": 0.5751, "rho": -0.5711}},
      "B": {"spot": 100, "model": "heston",
            "heston": {"v0": 0.0175, "kappa": 1.5768, "theta": 0.0398, "xi": 0.5751, "rho": -0.5711},
            "jumps": {"intensity": 1.0, "mean": -0.1, "vol": 0.15}},
      "G": {"spot": 100, "vol": 0.2},
      "M": {"spot": 100, "vol": 0.2, "jumps": {"intensity": 1.0, "mean": -0.1, "vol": 0.15}},
      "L": {"spot": 100, "model": "local_vol", "vol_surface": {"expiries": [0.5, 1, 2],
            "strikes": [60, 80, 90, 100, 110, 120, 150],
            "vols": [[0.32, 0.27, 0.24, 0.21, 0.2, 0.21, 0.24], [0.3, 0.27, 0.24, 0.22, 0.21, 0.21, 0.23],
                     [0.29, 0.26, 0.24, 0.225, 0.215, 0.21, 0.22]]}}}})",
                                   "jumps");
  auto make = [](std::string id, product_kind p, const char* asset) {
    trade t;
    t.id = std::move(id);
    t.product = p;
    t.type = option_type::call;
    t.underlyings = {asset};
    t.strike = 100.0;
    t.maturity = 1.0;
    t.fixings = 252;
    if (p == product_kind::barrier) {
      t.barrier = 80.0;
      t.barrier_type = barrier_kind::down_out;
      t.monitoring = monitoring_kind::discrete;
    }
    return t;
  };
  std::vector<trade> const trades = {
      make("heston-european", product_kind::vanilla, "H"), make("bates-european", product_kind::vanilla, "B"),
      make("gbm-asian", product_kind::asian, "G"),         make("merton-asian", product_kind::asian, "M"),
      make("gbm-down-out", product_kind::barrier, "G"),    make("merton-down-out", product_kind::barrier, "M"),
      make("local-vol-asian", product_kind::asian, "L"),   make("local-vol-down-out", product_kind::barrier, "L")};
  for (const trade& t : trades) {
    engine_options o;
    o.backend = cpu ? backend_choice::cpu : backend_choice::gpu;
    o.steps = 252;
    o.control_variates = false;
    o.paths = cpu ? (1 << 14) : (1 << 21);
    portfolio book;
    book.trades = {t};
    engine const eng(market, o);
    pricing_run run;
    double const wall = timed(5, [&] { run = eng.price(book); });
    auto const& r = run.results[0];
    std::printf(
        "{\"bench\":\"%s\",\"paths\":%lld,\"wall_s\":%.5f,\"path_steps_per_s\":%.4g,\"price\":%.6f,"
        "\"std_error\":%.6f%s}\n",
        t.id.c_str(), static_cast<long long>(r.paths), wall, static_cast<double>(r.paths) * 252.0 / wall, r.price,
        r.std_error, r.status == trade_status::ok ? "" : ",\"failed\":true");
    std::fflush(stdout);
  }
}

// What an autocallable's early stop saves (issue 35): a 5-year note observed quarterly with a daily
// continuous knock-in (1,260 steps), on one GBM asset and as a worst-of of three, priced as
// written and with its autocall barriers out of reach (every path walks every step: the most
// work). The wall-time ratio is the share of path-steps the callable note still walks; beside it,
// the share its paths need (expected life / maturity, from the redemption probabilities). Median
// of 5 calls each; not in `all`.
void autocall_bench(bool cpu)
{
  auto const market = parse_market(R"({"rate": 0.03, "assets": {
      "A": {"spot": 100, "vol": 0.25, "dividend_yield": 0.02},
      "B": {"spot": 80, "vol": 0.3, "dividend_yield": 0.01},
      "C": {"spot": 120, "vol": 0.2}},
      "correlation": {"A,B": 0.6, "A,C": 0.5, "B,C": 0.55}})",
                                   "autocall");
  auto make = [](std::string id, std::vector<std::string> assets, double call_level) {
    trade t;
    t.id = std::move(id);
    t.product = product_kind::autocallable;
    t.underlyings = std::move(assets);
    t.maturity = 5.0;
    for (int j = 1; j <= 20; ++j) t.observation_times.push_back(0.25 * j);
    t.autocall_barrier = {call_level};
    t.coupon = 0.02;
    t.coupon_barrier = {0.8};
    t.memory = true;
    t.ki_barrier = 0.6;
    t.ki_monitoring = knock_in_monitoring::continuous;
    return t;
  };
  for (bool const worst_of : {false, true}) {
    std::vector<std::string> const assets =
        worst_of ? std::vector<std::string>{"A", "B", "C"} : std::vector<std::string>{"A"};
    double walls[2] = {0.0, 0.0};
    double needed = 1.0;  // the callable note's share of path-steps its paths need, from its redemptions
    for (int full = 0; full < 2; ++full) {
      trade const t = make(std::string(worst_of ? "worst-of-3" : "single") + (full ? "-never-called" : "-autocallable"),
                           assets, full ? 100.0 : 1.0);
      engine_options o;
      o.backend = cpu ? backend_choice::cpu : backend_choice::gpu;
      o.steps = 1260;
      o.paths = cpu ? (1 << 12) : (1 << 20);
      portfolio book;
      book.trades = {t};
      engine const eng(market, o);
      pricing_run run;
      walls[full] = timed(5, [&] { run = eng.price(book); });
      auto const& r = run.results[0];
      std::printf(
          "{\"bench\":\"%s\",\"paths\":%lld,\"steps\":1260,\"wall_s\":%.5f,\"price\":%.6f,"
          "\"std_error\":%.6f%s}\n",
          t.id.c_str(), static_cast<long long>(r.paths), walls[full], r.price, r.std_error,
          r.status == trade_status::ok ? "" : ",\"failed\":true");
      // The steps are uniform in time: a path redeemed at t needs t / T of them.
      if (full == 0 && r.redemption) needed = r.redemption->expected_life / t.maturity;
    }
    std::printf(
        "{\"bench\":\"%s-work-share\",\"callable_over_full_wall\":%.4f,\"path_steps_needed_share\":%.4f}\n",
        worst_of ? "worst-of-3" : "single", walls[0] / walls[1], needed);
    std::fflush(stdout);
  }
  // Plain paths (no antithetic pairs), as the torch.compile peer draws them.
  engine_options o;
  o.backend = cpu ? backend_choice::cpu : backend_choice::gpu;
  o.steps = 1260;
  o.paths = cpu ? (1 << 12) : (1 << 20);
  o.antithetic = false;
  portfolio book;
  book.trades = {make("worst-of-3-plain-paths", {"A", "B", "C"}, 1.0)};
  engine const eng(market, o);
  pricing_run run;
  double const wall = timed(5, [&] { run = eng.price(book); });
  std::printf(
      "{\"bench\":\"worst-of-3-plain-paths\",\"paths\":%lld,\"steps\":1260,\"wall_s\":%.5f,"
      "\"price\":%.6f,\"std_error\":%.6f}\n",
      static_cast<long long>(run.results[0].paths), wall, run.results[0].price, run.results[0].std_error);
}

// What --precision double costs: single-asset trades priced with float and with double paths
// (antithetic, the default), each a median of 5 engine calls. Not in `all`. Path-steps: the
// vanillas count one a path, the best-of two (asset-paths), the American 50 (its pricing walk
// only, not the calibration's).
void precision_bench(bool cpu)
{
  auto const heston_market = parse_market(R"({"rate": 0.0, "assets": {"H": {"spot": 100, "model": "heston",
      "heston": {"v0": 0.0175, "kappa": 1.5768, "theta": 0.0398, "xi": 0.5751, "rho": -0.5711}}}})",
                                          "heston");
  auto const gbm_market = parse_market(R"({"rate": 0.03, "assets": {"G": {"spot": 100, "vol": 0.25},
      "G2": {"spot": 95, "vol": 0.2}}, "correlation": {"G,G2": 0.5}})",
                                       "gbm");
  // Local vol from a skewed implied surface (strikes 40% to 200% of spot; the market checks it is
  // free of static arbitrage).
  auto const local_vol_market = parse_market(R"({"rate": 0.03, "assets": {"L": {"spot": 100, "model": "local_vol",
      "vol_surface": {"expiries": [0.25, 0.5, 1, 2], "strikes": [40, 60, 80, 90, 100, 110, 120, 150, 200],
      "vols": [[0.33, 0.3, 0.275, 0.262, 0.25, 0.24, 0.232, 0.22, 0.21], [0.325, 0.297, 0.273, 0.261, 0.25, 0.241,
      0.234, 0.223, 0.214], [0.32, 0.294, 0.271, 0.26, 0.25, 0.242, 0.236, 0.226, 0.218], [0.31, 0.288, 0.268,
      0.259, 0.25, 0.243, 0.238, 0.23, 0.224]]}}}})",
                                             "local-vol");
  auto make = [](std::string id, product_kind p, std::string asset) {
    trade t;
    t.id = std::move(id);
    t.product = p;
    t.type = option_type::call;
    t.underlyings = {std::move(asset)};
    t.strike = 100.0;
    t.maturity = 1.0;
    return t;
  };
  trade const heston = make("heston-european", product_kind::vanilla, "H");
  trade barrier = make("gbm-down-out", product_kind::barrier, "G");
  barrier.barrier = 85.0;
  barrier.barrier_type = barrier_kind::down_out;
  barrier.monitoring = monitoring_kind::continuous;
  trade asian = make("gbm-asian", product_kind::asian, "G");
  asian.fixings = 252;
  trade const vanilla = make("gbm-vanilla", product_kind::vanilla, "G");
  trade best = make("gbm-best-of-2", product_kind::best_of, "G");
  best.underlyings = {"G", "G2"};
  // Families whose double work the GPU backend hands to its host (CPU, all cores): the
  // early-exercise walk and every request with Greeks; and local vol's own double kernels.
  trade american = make("gbm-american-put", product_kind::vanilla, "G");
  american.type = option_type::put;
  american.exercise = exercise_style::american;
  trade const local_vol = make("local-vol-european", product_kind::vanilla, "L");
  trade const vanilla_greeks = make("gbm-vanilla-greeks", product_kind::vanilla, "G");
  trade asian_greeks = make("gbm-asian-greeks", product_kind::asian, "G");
  asian_greeks.fixings = 252;
  for (const trade& t : {heston, barrier, asian, vanilla, best, local_vol, american, vanilla_greeks, asian_greeks}) {
    bool const is_heston = t.id == heston.id;
    bool const is_vanilla = t.id == vanilla.id || t.id == vanilla_greeks.id;
    bool const is_best = t.id == best.id;
    bool const is_american = t.id == american.id;
    bool const greeks = t.id == vanilla_greeks.id || t.id == asian_greeks.id;
    bool const on_host = is_american || greeks;  // in double; float runs on the GPU
    double const steps = is_vanilla ? 1.0 : is_best ? 2.0 : is_american ? 50.0 : 252.0;  // best-of: asset-paths
    double rate[2] = {0.0, 0.0};
    for (path_precision p : {path_precision::float32, path_precision::float64}) {
      engine_options o;
      o.backend = cpu ? backend_choice::cpu : backend_choice::gpu;
      o.precision = p;
      o.steps = is_american ? 50 : 252;
      o.greeks = greeks;
      o.paths = cpu ? (1 << 14) : (is_vanilla || is_best ? (1 << 24) : (1 << 21));
      if (!cpu && on_host) o.paths = is_vanilla ? (1 << 22) : (1 << 17);  // the host's double takes seconds
      portfolio book;
      book.trades = {t};
      engine const eng(is_heston ? heston_market : t.id == local_vol.id ? local_vol_market : gbm_market, o);
      pricing_run run;
      double const wall = timed(5, [&] { run = eng.price(book); });
      auto const& r = run.results[0];
      bool const dbl = p == path_precision::float64;
      rate[dbl ? 1 : 0] = static_cast<double>(r.paths) * steps / wall;
      std::printf(
          "{\"bench\":\"%s\",\"precision\":\"%s\",\"paths\":%lld,\"wall_s\":%.5f,\"path_steps_per_s\":%.4g,"
          "\"price\":%.6f,\"std_error\":%.6f%s}\n",
          t.id.c_str(), dbl ? "double" : "float", static_cast<long long>(r.paths), wall, rate[dbl ? 1 : 0], r.price,
          r.std_error, r.message.empty() ? "" : (",\"message\":\"" + r.message + "\"").c_str());
      std::fflush(stdout);
    }
    std::printf("{\"bench\":\"%s\",\"double_over_float\":%.3f}\n", t.id.c_str(), rate[1] / rate[0]);
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

// The process's resident set in bytes (Linux), 0 where it cannot be read.
std::size_t resident_bytes()
{
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return 0;
  unsigned long pages = 0;
  unsigned long resident = 0;
  int const got = std::fscanf(f, "%lu %lu", &pages, &resident);
  std::fclose(f);
  return got == 2 ? resident * 4096UL : 0;
}

// 16 callers, each with its own book (different trades, sizes and products' mixes of paths),
// round after round until `seconds` pass: every round's prices and std errors must be the
// bits of the caller's first round; the pool's reserved bytes are sampled between rounds.
void soak_bench(bool cpu, double seconds)
{
  constexpr int threads = 16;
  auto const opts = sample_options(4096);
  auto const eng = make(opts, cpu, 0);
  std::vector<portfolio> books;
  for (int i = 0; i < threads; ++i) {
    std::size_t const count = 32 + 24 * static_cast<std::size_t>(i);  // 32 .. 392 trades
    books.push_back(book_for(opts, (static_cast<std::size_t>(i) * 211) % (opts.size() - count), count,
                             std::int64_t{4096} << (i % 5)));
  }
  std::vector<pricing_run> first(threads);
  std::atomic<std::uint64_t> rounds{0};
  std::atomic<std::uint64_t> mismatches{0};
  std::atomic<bool> stop{false};
  auto const t0 = clock_type::now();
  std::vector<std::future<void>> callers;
  for (int i = 0; i < threads; ++i) {
    callers.push_back(std::async(std::launch::async, [&, i] {
      first[i] = eng.price(books[i]);
      while (!stop.load()) {
        auto const run = eng.price(books[i]);
        for (std::size_t k = 0; k < run.results.size(); ++k) {
          bool const same = std::memcmp(&run.results[k].price, &first[i].results[k].price, sizeof(double)) == 0 &&
                            std::memcmp(&run.results[k].std_error, &first[i].results[k].std_error, sizeof(double)) == 0;
          if (!same) mismatches.fetch_add(1);
        }
        rounds.fetch_add(1);
      }
    }));
  }
  struct sample {
    double t;
    std::size_t reserved;  // scratch bytes held from the device
    std::size_t resident;  // host RSS
  };
  std::vector<sample> samples;
  while (seconds_since(t0) < seconds) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    auto const report = eng.memory();
    samples.push_back({seconds_since(t0), report && report->scratch ? report->scratch->reserved : 0, resident_bytes()});
  }
  stop.store(true);
  for (auto& c : callers) c.get();
  double const wall = seconds_since(t0);
  // Growth: each measure's peak in the second half of the run against the first half's.
  sample first_half{};
  sample second_half{};
  for (auto const& x : samples) {
    sample& half = x.t < wall / 2 ? first_half : second_half;
    half.reserved = std::max(half.reserved, x.reserved);
    half.resident = std::max(half.resident, x.resident);
  }
  std::printf(
      "{\"bench\":\"soak_16_threads\",\"seconds\":%.1f,\"rounds\":%llu,\"prices_per_s\":%.4g,"
      "\"mismatches\":%llu,\"reserved_peak_first_half\":%zu,\"reserved_peak_second_half\":%zu,"
      "\"rss_peak_first_half\":%zu,\"rss_peak_second_half\":%zu,\"samples\":%zu}\n",
      wall, static_cast<unsigned long long>(rounds.load()), static_cast<double>(rounds.load()) / wall,
      static_cast<unsigned long long>(mismatches.load()), first_half.reserved, second_half.reserved,
      first_half.resident, second_half.resident, samples.size());
  std::fflush(stdout);
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
  if (mode == "jumps") jump_bench(cpu);
  if (mode == "autocall") autocall_bench(cpu);
  if (mode == "precision") precision_bench(cpu);
  if (mode == "soak") soak_bench(cpu, argc > 3 ? std::atof(argv[3]) : 60.0);
  return 0;
}
