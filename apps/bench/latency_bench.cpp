// Where a small request's time goes on an idle engine (issue 38: a 2-trade request's latency).
// Prices the load test's small jobs (2 trades x PATHS, the same seeded stream) one after another
// on one thread, GAP_US apart (0: back to back; the load test's idle engine has 5,000 us between
// calls, and its threads sleep), so the engine is idle at each call's start, and prints per call the wall time
// and the summary's host phases (prepare, price, results) with what is left over, as
// percentiles; then, on an engine with the timeline on, one call's spans (traced calls run
// eagerly). A benchmark app, not a test.
//   mcprice-latency MARKET.json [gpu|cpu] [graphs|eager] [CALLS] [PATHS] [GAP_US]
#include "load_stream.hpp"
#include "mcprice/engine.hpp"
#include "mcprice/market_reader.hpp"
#include "mcprice/memory/latency_histogram.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace {

struct call_times {
  std::vector<double> wall, prepare, price, results, rest;  // microseconds
  void add(const mcprice::run_summary& s, double wall_us)
  {
    double const p = 1e6 * s.prepare_seconds;
    double const q = 1e6 * s.price_seconds;
    double const r = 1e6 * s.results_seconds;
    wall.push_back(wall_us);
    prepare.push_back(p);
    price.push_back(q);
    results.push_back(r);
    rest.push_back(wall_us - p - q - r);
  }
};

void print_row(const char* name, const std::vector<double>& v)
{
  std::printf("  %-8s p10 %8.1f  p50 %8.1f  p90 %8.1f  p99 %8.1f us\n", name, mcprice::percentile(v, 0.10),
              mcprice::percentile(v, 0.50), mcprice::percentile(v, 0.90), mcprice::percentile(v, 0.99));
}

std::vector<mcprice::load::job> small_jobs(const mcprice::market_data& market, std::size_t n, std::int64_t paths)
{
  mcprice::load::stream_options s;
  s.jobs = n;
  s.mix = {{"small", 1.0, 2, paths}};
  return mcprice::load::make_stream(s, market);
}

}  // namespace

int main(int argc, char** argv)
{
  if (argc < 2) {
    std::fprintf(stderr, "usage: mcprice-latency MARKET.json [gpu|cpu] [graphs|eager] [CALLS] [PATHS] [GAP_US]\n");
    return 1;
  }
  mcprice::engine_options o;
  o.graphs = mcprice::graph_mode::off;
  std::size_t calls = 2000;
  std::int64_t paths = 16384;
  double gap_us = 0.0;
  int number = 0;
  for (int i = 2; i < argc; ++i) {
    std::string const a = argv[i];
    if (a == "gpu") o.backend = mcprice::backend_choice::gpu;
    else if (a == "cpu") o.backend = mcprice::backend_choice::cpu;
    else if (a == "graphs") o.graphs = mcprice::graph_mode::on;
    else if (a == "eager") o.graphs = mcprice::graph_mode::off;
    else {
      double const value = std::atof(argv[i]);
      if (number == 0) calls = static_cast<std::size_t>(value);
      else if (number == 1) paths = static_cast<std::int64_t>(value);
      else gap_us = value;
      ++number;
    }
  }
  auto const market = mcprice::read_market_file(argv[1]);
  auto const jobs = small_jobs(market, calls, paths);

  mcprice::engine eng(market, o);
  for (std::size_t i = 0; i < std::min<std::size_t>(jobs.size(), 200); ++i) (void)eng.price(jobs[i].book);  // warm
  call_times t;
  for (auto const& j : jobs) {
    if (gap_us > 0.0) std::this_thread::sleep_for(std::chrono::duration<double, std::micro>(gap_us));
    auto const from = std::chrono::steady_clock::now();
    auto const run = eng.price(j.book);
    double const us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - from).count();
    t.add(run.summary, us);
  }
  std::printf("latency: %zu calls of 2 trades x %lld paths, %s, %s, one at a time, %.0f us apart\n", calls,
              static_cast<long long>(paths), eng.device_name().c_str(),
              o.graphs == mcprice::graph_mode::on ? "graphs on" : "graphs off", gap_us);
  print_row("wall", t.wall);
  print_row("prepare", t.prepare);
  print_row("price", t.price);
  print_row("results", t.results);
  print_row("rest", t.rest);

  // One traced call's spans, after a warm-up of the traced engine.
  o.timeline = true;
  mcprice::engine traced(market, o);
  mcprice::run_summary s;
  for (std::size_t i = 0; i < std::min<std::size_t>(jobs.size(), 50); ++i) {
    if (gap_us > 0.0) std::this_thread::sleep_for(std::chrono::duration<double, std::micro>(gap_us));
    s = traced.price(jobs[i].book).summary;
  }
  std::printf("a traced call (eager), wall %.1f us:\n", 1e6 * s.wall_seconds);
  for (auto const& span : s.timeline) {
    std::printf("  %-10s %s job %2zu %9.1f - %9.1f us\n", span.what.c_str(), span.device ? "gpu " : "host", span.index,
                1e6 * span.begin_seconds, 1e6 * span.end_seconds);
  }
  return 0;
}
