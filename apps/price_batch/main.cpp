// price-batch: the contract's command-line pricer.
#include "command_line.hpp"
#include "load_test.hpp"
#include "mcprice/engine.hpp"
#include "mcprice/input_error.hpp"
#include "mcprice/market_reader.hpp"
#include "mcprice/memory/cuda_error.hpp"
#include "mcprice/portfolio_reader.hpp"
#include "mcprice/results_writer.hpp"
#include "mcprice/version.hpp"
#include "output_file.hpp"
#include "rerun_report.hpp"
#include "run_manifest.hpp"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <atomic>
#include <csignal>
#include <signal.h>
#include <unistd.h>

namespace {

constexpr int exit_all_priced = 0;
constexpr int exit_nothing_priced = 1;
constexpr int exit_some_failed = 2;
constexpr int exit_rerun_differs = 3;         // --rerun: some trade's bits moved
constexpr int exit_rerun_inputs_changed = 4;  // --rerun: an input's digest moved; nothing was run
// SIGINT / SIGTERM: the run stopped cleanly, priced trades written, the rest cancelled; the
// status is the shell's for a death by that signal (128 + its number).
constexpr int exit_signal_base = 128;

// Set by the signal handler (a lock-free atomic store is async-signal-safe); the engine skips
// work not yet started. A second signal kills at once (SA_RESETHAND restores the default).
std::atomic<bool> stop_requested{false};
std::atomic<int> stop_signal{0};

extern "C" void request_stop(int sig)
{
  stop_signal.store(sig);
  stop_requested.store(true);
}

void install_stop_handlers()
{
  struct sigaction action {};
  action.sa_handler = request_stop;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESETHAND;
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

void print_summary(const mcprice::run_summary& s)
{
  std::fprintf(stderr, "price-batch: %zu trades (%zu ok, %zu failed", s.trades, s.trades - s.failed - s.cancelled, s.failed);
  if (s.cancelled > 0) std::fprintf(stderr, ", %zu cancelled", s.cancelled);
  std::fprintf(stderr, "), %.4g paths, %.3f s, backend %s (%s)\n", static_cast<double>(s.paths), s.wall_seconds,
               s.backend == mcprice::backend_kind::gpu ? "gpu" : "cpu", s.device_name.c_str());
}

std::string results_text(const mcprice::pricing_run& run, mcprice::output_format format)
{
  std::ostringstream text;
  mcprice::write_results(text, run, format);
  return text.str();
}

struct priced {
  mcprice::pricing_run run;
  std::string text;  // the results as written (a manifest digests them)
};

// Reads the inputs, prices, writes the results where the command line says (--out, else stdout
// unless rerunning) and the summary and memory report to stderr.
priced price(const std::string& portfolio, const std::string& market_path, const mcprice::engine_options& options,
             const mcprice::cli::command_line& cl)
{
  auto market = mcprice::read_market_file(market_path);
  auto const book = mcprice::read_portfolio_file(portfolio);
  mcprice::engine const engine(std::move(market), options);
  for (auto const& notice : engine.notices()) std::fprintf(stderr, "price-batch: %s\n", notice.c_str());

  bool const show_progress = !cl.quiet && ::isatty(STDERR_FILENO) == 1;
  auto progress = [](std::int64_t done, std::int64_t total) {
    std::fprintf(stderr, "\rpricing: %5.1f%% of %.4g paths", 100.0 * static_cast<double>(done) / static_cast<double>(total),
                 static_cast<double>(total));
    std::fflush(stderr);
  };
  auto result = engine.price(book, show_progress ? mcprice::progress_callback(progress) : nullptr, &stop_requested);
  if (show_progress) std::fprintf(stderr, "\n");

  std::string text = results_text(result, cl.format);
  if (!cl.out.empty()) mcprice::cli::write_file_atomically(cl.out, text);
  else if (cl.rerun.empty()) std::cout << text << std::flush;

  if (!cl.quiet) print_summary(result.summary);
  if (result.summary.cancelled > 0) {
    std::fprintf(stderr, "price-batch: stopped by signal %d: %zu trades cancelled (status cancelled), the others written\n",
                 stop_signal.load(), result.summary.cancelled);
  }
  if (result.summary.without_greeks > 0) {
    std::fprintf(stderr,
                 "price-batch: --greeks: %zu priced trades have no Greeks in this release (multi-asset "
                 "trades of more than 8 assets; docs/greeks.md): their Greek cells are empty\n",
                 result.summary.without_greeks);
  }
  if (cl.memory_report) {
    if (auto const report = engine.memory()) {
      std::ostringstream r;
      mcprice::print_report(r, *report);
      std::fputs(r.str().c_str(), stderr);
    } else {
      std::fputs("price-batch: --memory-report: the CPU backend uses no GPU memory\n", stderr);
    }
  }
  return {std::move(result), std::move(text)};
}

// --rerun: the manifest's inputs (checked against their digests) and settings, with any
// settings given on this command line overriding them; the new results compared bit for bit.
int rerun(const mcprice::cli::command_line& cl)
{
  using namespace mcprice::cli;
  run_manifest const recorded = read_manifest(cl.rerun);
  auto const inputs_changed = changed_inputs(recorded);
  if (!inputs_changed.empty() && !cl.allow_input_change) {
    rerun_report r;
    r.inputs_changed = inputs_changed;
    print_rerun_report(std::cout, r, cl.rerun);
    std::cout << "  not rerun: the inputs changed (--allow-input-change reruns anyway)\n";
    return exit_rerun_inputs_changed;
  }
  mcprice::engine_options options = recorded.settings;
  options.backend = recorded.backend == "gpu" ? mcprice::backend_choice::gpu : mcprice::backend_choice::cpu;
  auto const given = [&](const char* name) { return std::find(cl.given.begin(), cl.given.end(), name) != cl.given.end(); };
  mcprice::engine_options const& o = cl.engine;
  if (given("paths")) options.paths = o.paths;
  if (given("steps")) options.steps = o.steps;
  if (given("seed")) options.seed = o.seed;
  if (given("antithetic")) options.antithetic = o.antithetic;
  if (given("control-variates")) options.control_variates = o.control_variates;
  if (given("greeks")) options.greeks = o.greeks;
  if (given("backend")) options.backend = o.backend;
  if (given("threads")) options.threads = o.threads;
  if (given("device")) options.device = o.device;
  if (given("streams")) options.streams = o.streams;
  if (given("job-cap")) options.job_cap_bytes = o.job_cap_bytes;
  if (given("allocator")) options.allocator = o.allocator;
  if (given("pool-limit")) options.pool_limit_bytes = o.pool_limit_bytes;
  if (given("route")) options.route = o.route;
  if (given("grid-blocks")) options.grid_blocks = o.grid_blocks;
  auto const format = recorded.results_format == "json" ? mcprice::output_format::json : mcprice::output_format::csv;
  mcprice::cli::command_line out = cl;
  out.format = format;
  auto const p = price(recorded.portfolio.path, recorded.market.path, options, out);
  auto const now = make_manifest(recorded.portfolio.path, recorded.market.path, cl.out, format, options, p.run, p.text);
  rerun_report r = compare_runs(recorded, now);
  r.inputs_changed = inputs_changed;
  print_rerun_report(std::cout, r, cl.rerun);
  if (!cl.manifest.empty()) write_file_atomically(cl.manifest, to_json(now).dump(2) + "\n");
  return r.identical() ? exit_all_priced : exit_rerun_differs;
}

int run(int argc, const char* const argv[])
{
  auto const cl = mcprice::cli::parse_command_line(argc, argv);
  if (cl.show_help) {
    std::cout << mcprice::cli::help_text();
    return exit_all_priced;
  }
  if (cl.show_version) {
    std::cout << "price-batch (mcprice) " << mcprice::version << " (commit " << mcprice::git_commit << ")\n";
    return exit_all_priced;
  }
  if (cl.load_test) return mcprice::cli::run_load_test(cl, std::cout, std::cerr);
  install_stop_handlers();
  if (!cl.rerun.empty()) return rerun(cl);
  auto const p = price(cl.portfolio, cl.market, cl.engine, cl);
  if (!cl.manifest.empty()) {
    auto const m = mcprice::cli::make_manifest(cl.portfolio, cl.market, cl.out, cl.format, cl.engine, p.run, p.text);
    mcprice::cli::write_file_atomically(cl.manifest, mcprice::cli::to_json(m).dump(2) + "\n");
  }
  if (p.run.summary.cancelled > 0) return exit_signal_base + stop_signal.load();
  return p.run.summary.failed > 0 ? exit_some_failed : exit_all_priced;
}

}  // namespace

int main(int argc, char** argv)
{
  try {
    return run(argc, argv);
  } catch (const mcprice::input_error& e) {
    std::fprintf(stderr, "price-batch: error: %s\n", e.what());
  } catch (const mcprice::configuration_error& e) {
    std::fprintf(stderr, "price-batch: error: %s\n", e.what());
  } catch (const mcprice::cuda_error& e) {
    std::fprintf(stderr, "price-batch: GPU error: %s\n", e.what());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "price-batch: error: %s\n", e.what());
  }
  return exit_nothing_priced;
}
