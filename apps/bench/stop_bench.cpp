// Where a stopped call's time goes (issue 37: Ctrl-C stops within a second): a book priced on a
// thread of its own with the call's timeline on, its cancel flag set DELAY seconds in; prints the
// seconds from the flag to the call's return, the rows by status, and every timeline span still
// open at the flag (host phases and GPU jobs), so the span that holds the stop up is named.
// DELAY 0 prices the book uninterrupted. lmem-max sets cudaDeviceLmemResizeToMax before the
// engine starts (the device keeps its local memory at the largest a kernel asked for, so no
// later launch waits for the device to idle while it grows). step-launches: calibrations launch
// a kernel a backward step rather than all steps in one cooperative launch. A benchmark app, not
// a test.
//   mcprice-stop-bench BOOK.csv MARKET.json PATHS DELAY [greeks] [gpu|cpu] [lmem-max] [step-launches]
#include "mcprice/engine.hpp"
#include "mcprice/market_reader.hpp"
#include "mcprice/portfolio_reader.hpp"
#include "testing/engine_knobs.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace {

double seconds_since(std::chrono::steady_clock::time_point from)
{
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - from).count();
}

// The spans that end after the flag, latest end last: what the stop waited for.
void print_open_spans(const mcprice::run_summary& s, double flag_s)
{
  std::vector<mcprice::timeline_span> open;
  std::copy_if(s.timeline.begin(), s.timeline.end(), std::back_inserter(open),
               [flag_s](const auto& span) { return span.end_seconds > flag_s; });
  std::sort(open.begin(), open.end(), [](const auto& a, const auto& b) { return a.end_seconds < b.end_seconds; });
  for (auto const& span : open) {
    std::printf("  %-12s %s chunk %3zu job %3zu  %9.3f - %9.3f s\n", span.what.c_str(), span.device ? "gpu " : "host",
                span.chunk, span.index, span.begin_seconds, span.end_seconds);
  }
}

}  // namespace

int main(int argc, char** argv)
{
  if (argc < 5) {
    std::fprintf(
        stderr,
        "usage: mcprice-stop-bench BOOK.csv MARKET.json PATHS DELAY [greeks] [gpu|cpu] [lmem-max] [step-launches]\n");
    return 1;
  }
  mcprice::engine_options o;
  mcprice::detail::engine_knobs knobs;
  o.paths = static_cast<std::int64_t>(std::atof(argv[3]));
  double const delay = std::atof(argv[4]);
  for (int i = 5; i < argc; ++i) {
    std::string const a = argv[i];
    if (a == "greeks") o.greeks = true;
    if (a == "gpu") o.backend = mcprice::backend_choice::gpu;
    if (a == "cpu") o.backend = mcprice::backend_choice::cpu;
    if (a == "step-launches") knobs.calibration_one_launch = false;
    if (a == "lmem-max" && cudaSetDeviceFlags(cudaDeviceLmemResizeToMax) != cudaSuccess) {
      std::fprintf(stderr, "cudaSetDeviceFlags(cudaDeviceLmemResizeToMax) failed\n");
      return 1;
    }
  }
  o.timeline = true;
  auto const book = mcprice::read_portfolio_file(argv[1]);
  std::optional<mcprice::engine> eng;
  auto const market = mcprice::read_market_file(argv[2]);
  auto const construct_from = std::chrono::steady_clock::now();
  eng.emplace(market, o, knobs);
  double const construct_s = seconds_since(construct_from);
  std::atomic<bool> cancel{false};
  mcprice::pricing_run run;
  auto const start = std::chrono::steady_clock::now();
  std::thread pricing([&] { run = eng->price(book, {}, &cancel); });
  double flag_s = -1.0;
  if (delay > 0.0) {
    std::this_thread::sleep_for(std::chrono::duration<double>(delay));
    flag_s = seconds_since(start);
    cancel = true;
  }
  pricing.join();
  double const wall = seconds_since(start);
  // The engine's teardown is part of a process's exit (price-batch's, after a Ctrl-C).
  auto const teardown_from = std::chrono::steady_clock::now();
  eng.reset();
  double const teardown = seconds_since(teardown_from);
  std::size_t const ok = run.summary.trades - run.summary.failed - run.summary.cancelled;
  std::printf(
      "{\"bench\":\"stop\",\"greeks\":%s,\"paths\":%lld,\"construct_s\":%.3f,\"flag_s\":%.3f,\"wall_s\":%.3f,"
      "\"stop_s\":%.3f,\"teardown_s\":%.3f,"
      "\"trades\":%zu,\"ok\":%zu,\"cancelled\":%zu,\"failed\":%zu,\"jobs\":%zu,\"chunks\":%zu}\n",
      o.greeks ? "true" : "false", static_cast<long long>(o.paths), construct_s, flag_s, wall, flag_s < 0 ? 0.0 : wall - flag_s,
      teardown, run.summary.trades, ok, run.summary.cancelled, run.summary.failed, run.summary.jobs,
      run.summary.chunks);
  if (flag_s >= 0.0) print_open_spans(run.summary, flag_s);
  std::fflush(stdout);
  return 0;
}
