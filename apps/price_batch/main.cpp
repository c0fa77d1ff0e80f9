// price-batch: the contract's command-line pricer.
#include "command_line.hpp"
#include "load_test.hpp"
#include "memory_budget.hpp"
#include "mcprice/engine.hpp"
#include "mcprice/input_error.hpp"
#include "mcprice/market_reader.hpp"
#include "mcprice/memory/cuda_error.hpp"
#include "mcprice/portfolio_reader.hpp"
#include "mcprice/results_writer.hpp"
#include "mcprice/version.hpp"
#include "mcprice/work_split.hpp"
#include "output_file.hpp"
#include "rank_pricing.hpp"
#include "rerun_report.hpp"
#include "run_manifest.hpp"
#include "upgrade_validation.hpp"

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <optional>
#include <signal.h>
#include <sstream>
#include <unistd.h>

namespace {

constexpr int exit_all_priced = 0;
constexpr int exit_nothing_priced = 1;
constexpr int exit_some_failed = 2;
constexpr int exit_rerun_differs = 3;         // --rerun: some trade's bits moved
constexpr int exit_rerun_inputs_changed = 4;  // --rerun: an input's digest moved; nothing was run
constexpr int exit_validation_slower = 5;     // --validate-against: numbers agree, the run is slower
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

void print_summary(const mcprice::run_summary& s, const std::string& placement)
{
  std::fprintf(stderr, "price-batch: %zu trades (%zu ok, %zu failed", s.trades, s.trades - s.failed - s.cancelled,
               s.failed);
  if (s.cancelled > 0) std::fprintf(stderr, ", %zu cancelled", s.cancelled);
  std::string where = s.device_name;
  if (s.devices > 1 && s.backend == mcprice::backend_kind::gpu) where += " x " + std::to_string(s.devices);
  if (!placement.empty()) where += "; " + placement;
  std::fprintf(stderr, "), %.4g paths, %.3f s, backend %s (%s)\n", static_cast<double>(s.paths), s.wall_seconds,
               s.backend == mcprice::backend_kind::gpu ? "gpu" : "cpu", where.c_str());
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
  bool whole{true};  // false on MPI ranks other than 0: they hold only their part, already sent
};

bool given(const mcprice::cli::command_line& cl, const char* name)
{
  return std::find(cl.given.begin(), cl.given.end(), name) != cl.given.end();
}

// who: the rank's prefix under mpirun, else empty.
void print_memory_report(const mcprice::engine& engine, const std::string& who)
{
  if (engine.backend() != mcprice::backend_kind::gpu) {
    std::fprintf(stderr, "price-batch: %s--memory-report: the CPU backend uses no GPU memory\n", who.c_str());
    return;
  }
  for (std::size_t d = 0; d < engine.device_count(); ++d) {
    if (auto const report = engine.memory(d)) {
      std::ostringstream r;
      if (!who.empty() || engine.device_count() > 1)
        r << who << "GPU " << d + 1 << " of " << engine.device_count() << ":\n";
      mcprice::print_report(r, *report);
      std::fputs(r.str().c_str(), stderr);
    }
  }
}

// --memory-profile: the run's scratch allocations on its GPU (docs/memory.md).
void write_profile(const mcprice::engine& engine, const std::string& path)
{
  if (engine.backend() != mcprice::backend_kind::gpu) {
    std::fprintf(stderr, "price-batch: --memory-profile: the CPU backend uses no GPU scratch; nothing recorded\n");
    return;
  }
  auto const report = engine.memory(0);
  if (!report || !report->profile) return;
  mcprice::cli::write_file_atomically(path, mcprice::cli::profile_to_json(*report->profile, engine.options().device).dump() + "\n");
}

// --suggest-budget: size classes, a job cap and a pool limit from recorded profiles.
int suggest(const mcprice::cli::command_line& cl)
{
  std::vector<mcprice::allocation_profile> profiles;
  for (auto const& f : cl.suggest_budget) profiles.push_back(mcprice::cli::read_profile(f));
  auto const budget = mcprice::cli::suggest_budget(profiles);
  mcprice::cli::print_budget(std::cout, budget, profiles.size());
  if (!cl.out.empty()) mcprice::cli::write_file_atomically(cl.out, mcprice::cli::settings_to_json(budget).dump(2) + "\n");
  return exit_all_priced;
}

// Reads the inputs, prices, writes the results where the command line says (--out, else stdout
// unless rerunning) and the summary and memory report to stderr. Under mpirun each rank prices
// its part of the book and rank 0 writes the whole run (rank_pricing.hpp).
priced price(const std::string& portfolio, const std::string& market_path, const mcprice::engine_options& options,
             const mcprice::cli::command_line& cl, mcprice::cli::rank_run& ranks)
{
  struct inputs {
    mcprice::market_data market;
    mcprice::portfolio book;
    std::vector<mcprice::trade_range> parts;
  };
  auto in = ranks.checkpoint([&] {
    inputs i{mcprice::read_market_file(market_path), mcprice::read_portfolio_file(portfolio), {}};
    if (ranks.split()) i.parts = ranks.parts(i.book, i.market, options);
    return i;
  });
  std::size_t const trades = in.book.trades.size();
  auto settings = ranks.engine_settings(options, given(cl, "device"), given(cl, "threads"));
  settings.record_allocations = !cl.memory_profile.empty();
  if (settings.record_allocations && ranks.split()) {
    throw mcprice::configuration_error("--memory-profile records one process's GPU; not under mpirun");
  }
  auto const engine =
      ranks.checkpoint([&] { return std::make_unique<mcprice::engine>(std::move(in.market), settings); });
  if (settings.record_allocations && engine->device_count() > 1) {
    throw mcprice::configuration_error("--memory-profile records one GPU's scratch; price on one --device");
  }
  std::string const who = ranks.prefix();
  for (auto const& notice : engine->notices()) std::fprintf(stderr, "price-batch: %s%s\n", who.c_str(), notice.c_str());

  bool const show_progress = ranks.first() && !cl.quiet && ::isatty(STDERR_FILENO) == 1;
  auto progress = [](std::int64_t done, std::int64_t total) {
    std::fprintf(stderr, "\rpricing: %5.1f%% of %.4g paths",
                 100.0 * static_cast<double>(done) / static_cast<double>(total), static_cast<double>(total));
    std::fflush(stderr);
  };
  auto const callback = show_progress ? mcprice::progress_callback(progress) : nullptr;
  auto mine = ranks.checkpoint([&] {
    ranks.fail_if_injected();
    if (!ranks.split()) return engine->price(in.book, callback, &stop_requested);
    return engine->price(mcprice::select_trades(in.book, ranks.mine(in.parts)), callback, &stop_requested);
  });
  if (show_progress) std::fprintf(stderr, "\n");
  if (cl.memory_report) print_memory_report(*engine, who);
  if (!cl.memory_profile.empty()) write_profile(*engine, cl.memory_profile);
  auto whole = ranks.gather(std::move(mine), in.parts, trades);
  if (!whole) return {{}, {}, false};
  mcprice::pricing_run result = std::move(*whole);

  std::string text = results_text(result, cl.format);
  if (!cl.out.empty()) mcprice::cli::write_file_atomically(cl.out, text);
  else if (cl.rerun.empty() && cl.validate_against.empty()) std::cout << text << std::flush;

  if (!cl.quiet) print_summary(result.summary, ranks.placement());
  if (result.summary.cancelled > 0) {
    std::fprintf(stderr,
                 "price-batch: stopped by signal %d: %zu trades cancelled (status cancelled), the others written\n",
                 stop_signal.load(), result.summary.cancelled);
  }
  if (result.summary.without_greeks > 0) {
    std::fprintf(stderr,
                 "price-batch: --greeks: %zu priced trades have no Greeks in this release (multi-asset trades "
                 "of more than 8 assets; early-exercise and multi-asset trades on local-vol assets; "
                 "docs/greeks.md): their Greek cells are empty\n",
                 result.summary.without_greeks);
  }
  return {std::move(result), std::move(text), true};
}

mcprice::cli::run_manifest manifest_of(const std::string& portfolio, const std::string& market,
                                       const mcprice::cli::command_line& cl, mcprice::output_format format,
                                       const mcprice::engine_options& options, const priced& p,
                                       const mcprice::cli::rank_run& ranks)
{
  auto m = mcprice::cli::make_manifest(portfolio, market, cl.out, format, options, p.run, p.text);
  m.rank_hosts = ranks.hosts();
  return m;
}

// --memory-settings: its classes, cap and limit, where the command line gave no cap or limit.
// Applied before pricing, so a manifest records what the run used.
mcprice::engine_options with_memory_settings(mcprice::engine_options o, const mcprice::cli::command_line& cl)
{
  if (!cl.memory_settings.empty()) {
    mcprice::cli::apply_memory_settings(cl.memory_settings, o, given(cl, "job-cap"), given(cl, "pool-limit"));
  }
  return o;
}

// A manifest's settings, with any given on this command line overriding them (--rerun and
// --validate-against).
mcprice::engine_options settings_from(const mcprice::cli::run_manifest& recorded, const mcprice::cli::command_line& cl)
{
  mcprice::engine_options options = recorded.settings;
  options.backend = recorded.backend == "gpu" ? mcprice::backend_choice::gpu : mcprice::backend_choice::cpu;
  mcprice::engine_options const& o = cl.engine;
  if (given(cl, "paths")) options.paths = o.paths;
  if (given(cl, "steps")) options.steps = o.steps;
  if (given(cl, "seed")) options.seed = o.seed;
  if (given(cl, "antithetic")) options.antithetic = o.antithetic;
  if (given(cl, "control-variates")) options.control_variates = o.control_variates;
  if (given(cl, "greeks")) options.greeks = o.greeks;
  if (given(cl, "precision")) options.precision = o.precision;
  if (given(cl, "rng")) options.rng = o.rng;
  if (given(cl, "rqmc-replicates")) options.rqmc_replicates = o.rqmc_replicates;
  if (given(cl, "backend")) options.backend = o.backend;
  if (given(cl, "threads")) options.threads = o.threads;
  if (given(cl, "device") || given(cl, "devices")) {
    options.device = o.device;
    options.devices = o.devices;
    options.every_device = o.every_device;
  }
  if (given(cl, "streams")) options.streams = o.streams;
  if (given(cl, "job-cap")) options.job_cap_bytes = o.job_cap_bytes;
  if (given(cl, "allocator")) options.allocator = o.allocator;
  if (given(cl, "pool-limit")) options.pool_limit_bytes = o.pool_limit_bytes;
  if (given(cl, "route")) options.route = o.route;
  if (given(cl, "grid-blocks")) options.grid_blocks = o.grid_blocks;
  return options;
}

// A manifest's run repeated under this build: its inputs (checked against their digests first;
// nullopt when they changed and the command line does not allow it, after `refuse` reported it)
// and its settings.
struct repeated {
  mcprice::cli::run_manifest now;
  std::vector<std::string> inputs_changed;
};

template <typename Refuse>
std::optional<repeated> repeat_run(const mcprice::cli::run_manifest& recorded, const mcprice::cli::command_line& cl,
                                   mcprice::cli::rank_run& ranks, Refuse&& refuse)
{
  using namespace mcprice::cli;
  auto const inputs_changed = ranks.checkpoint([&] { return changed_inputs(recorded); });
  if (ranks.agree(!inputs_changed.empty() && !cl.allow_input_change ? 1 : 0) == 1) {
    if (ranks.first()) refuse(inputs_changed);
    return std::nullopt;
  }
  mcprice::engine_options const options = with_memory_settings(settings_from(recorded, cl), cl);
  auto const format = recorded.results_format == "json" ? mcprice::output_format::json : mcprice::output_format::csv;
  command_line out = cl;
  out.format = format;
  auto const p = price(recorded.portfolio.path, recorded.market.path, options, out, ranks);
  if (!p.whole) return repeated{};  // rank 0 decides the status
  auto now = manifest_of(recorded.portfolio.path, recorded.market.path, cl, format, options, p, ranks);
  if (!cl.manifest.empty()) write_file_atomically(cl.manifest, to_json(now).dump(2) + "\n");
  return repeated{std::move(now), inputs_changed};
}

// --rerun: the manifest's run repeated and its results compared bit for bit. Under mpirun rank
// 0's view of the inputs decides for every rank, and rank 0 reports.
int rerun(const mcprice::cli::command_line& cl, mcprice::cli::rank_run& ranks)
{
  using namespace mcprice::cli;
  run_manifest const recorded = ranks.checkpoint([&] { return read_manifest(cl.rerun); });
  auto const again = repeat_run(recorded, cl, ranks, [&](const std::vector<std::string>& changed) {
    rerun_report r;
    r.inputs_changed = changed;
    print_rerun_report(std::cout, r, cl.rerun);
    std::cout << "  not rerun: the inputs changed (--allow-input-change reruns anyway)\n";
  });
  if (!again) return exit_rerun_inputs_changed;
  if (!ranks.first()) return exit_all_priced;
  rerun_report r = compare_runs(recorded, again->now);
  r.inputs_changed = again->inputs_changed;
  print_rerun_report(std::cout, r, cl.rerun);
  return r.identical() ? exit_all_priced : exit_rerun_differs;
}

// --validate-against: the baseline's run repeated under this build and machine, its numbers
// compared within standard errors and its timing within the slack.
int validate(const mcprice::cli::command_line& cl, mcprice::cli::rank_run& ranks)
{
  using namespace mcprice::cli;
  run_manifest const baseline = ranks.checkpoint([&] { return read_manifest(cl.validate_against); });
  validation_options const options{cl.tolerance, cl.latency_slack};
  auto const again = repeat_run(baseline, cl, ranks, [&](const std::vector<std::string>& changed) {
    for (auto const& c : changed) std::cout << "validation against " << cl.validate_against << ": input changed: " << c << "\n";
    std::cout << "  not run: the inputs changed (--allow-input-change validates anyway)\n";
  });
  if (!again) return exit_rerun_inputs_changed;
  if (!ranks.first()) return exit_all_priced;
  validation_report r = validate_run(baseline, again->now, options);
  r.inputs_changed = again->inputs_changed;
  print_validation_report(std::cout, r, cl.validate_against, options);
  if (!cl.validate_json.empty()) {
    write_file_atomically(cl.validate_json, to_json(r, cl.validate_against, options).dump(2) + "\n");
  }
  if (!r.numbers_agree()) return exit_rerun_differs;
  return r.latency_holds() ? exit_all_priced : exit_validation_slower;
}

int run(int argc, const char* const argv[], mcprice::cli::rank_run& ranks)
{
  auto const cl = mcprice::cli::parse_command_line(argc, argv);
  if (cl.show_help) {
    if (ranks.first()) std::cout << mcprice::cli::help_text();
    return exit_all_priced;
  }
  if (cl.show_version) {
    if (ranks.first()) {
      std::cout << "price-batch (mcprice) " << mcprice::version << " (commit " << mcprice::git_commit << ")"
                << (mcprice::cli::ranks_supported() ? " with MPI" : "") << "\n";
    }
    return exit_all_priced;
  }
  if (cl.load_test) {
    if (ranks.split()) throw mcprice::configuration_error("--load-test runs in one process, not under mpirun");
    return mcprice::cli::run_load_test(cl, std::cout, std::cerr);
  }
  install_stop_handlers();
  if (!cl.suggest_budget.empty()) return suggest(cl);
  if (!cl.rerun.empty()) return rerun(cl, ranks);
  if (!cl.validate_against.empty()) return validate(cl, ranks);
  auto const options = with_memory_settings(cl.engine, cl);
  auto const p = price(cl.portfolio, cl.market, options, cl, ranks);
  if (!p.whole) return exit_all_priced;  // rank 0 decides the status
  if (!cl.manifest.empty()) {
    auto const m = manifest_of(cl.portfolio, cl.market, cl, cl.format, options, p, ranks);
    mcprice::cli::write_file_atomically(cl.manifest, mcprice::cli::to_json(m).dump(2) + "\n");
  }
  if (p.run.summary.cancelled > 0) return exit_signal_base + stop_signal.load();
  return p.run.summary.failed > 0 ? exit_some_failed : exit_all_priced;
}

// Prints why the run stopped; under mpirun prefixed by the rank that stopped.
void print_failure(const std::exception_ptr& e, const mcprice::cli::rank_run& ranks)
{
  std::fprintf(stderr, "price-batch: %s%s\n", ranks.prefix().c_str(), mcprice::cli::describe_failure(e).c_str());
}

}  // namespace

int main(int argc, char** argv)
{
  std::unique_ptr<mcprice::cli::rank_world> world;
  try {
    world = mcprice::cli::join_ranks(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "price-batch: error: %s\n", e.what());
    return exit_nothing_priced;
  }
  // Every rank reaches the same checkpoints and the final agreement on the status: a failure
  // at a checkpoint stops every rank there (rank_failure), one after the last gather is rank 0's
  // alone and its status goes to every rank.
  mcprice::cli::rank_run ranks(world.get());
  int status = exit_nothing_priced;
  try {
    status = run(argc, argv, ranks);
  } catch (const mcprice::cli::rank_failure& e) {
    if (e.report()) std::fprintf(stderr, "price-batch: %s\n", e.what());
    return exit_nothing_priced;
  } catch (...) {
    print_failure(std::current_exception(), ranks);
    status = exit_nothing_priced;
  }
  return ranks.agree(status);
}
