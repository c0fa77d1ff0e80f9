#include "load_test.hpp"

#include "memory_budget.hpp"

#include "load_report_html.hpp"
#include "mcprice/input_error.hpp"
#include "mcprice/market_reader.hpp"
#include "output_file.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>

namespace mcprice::cli {
namespace {

std::string mib(std::size_t bytes)
{
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", static_cast<double>(bytes) / (1024.0 * 1024.0));
  return buf;
}

std::string percent(double share)
{
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", 100.0 * share);
  return buf;
}

// Where the bucketed pool's allocation tail comes from: the share of allocations that left the
// hot path, and their time against the growths' among them.
void print_slow_paths(std::ostream& out, const std::vector<load::strategy_result>& results)
{
  char line[256];
  bool header = false;
  for (auto const& r : results) {
    if (!r.blocks_visible || r.allocations == 0) continue;
    if (!header) {
      out << "\nbucketed slow paths (allocations that found no block at once; us):\n";
      std::snprintf(line, sizeof line, "%-16s %11s %9s %7s %8s %8s %9s %9s %9s %9s\n", "allocator", "allocations",
                    "slow", "slow%", "larger", "growths", "slow p50", "slow p99", "grow p50", "grow p99");
      out << line;
      header = true;
    }
    std::snprintf(line, sizeof line, "%-16s %11llu %9llu %6.2f%% %8llu %8llu %9.1f %9.1f %9.1f %9.1f\n",
                  r.label.c_str(), static_cast<unsigned long long>(r.allocations),
                  static_cast<unsigned long long>(r.slow_paths),
                  100.0 * static_cast<double>(r.slow_paths) / static_cast<double>(r.allocations),
                  static_cast<unsigned long long>(r.larger_reuses), static_cast<unsigned long long>(r.growths),
                  r.slow_latency_p50_us, r.slow_latency_p99_us, r.growth_latency_p50_us, r.growth_latency_p99_us);
    out << line;
  }
}

}  // namespace

std::string held_over(std::size_t held, std::size_t need)
{
  if (need == 0) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", static_cast<double>(held) / static_cast<double>(need));
  return buf;
}

// --graphs on: what the captured graphs hold (counted in held MiB above) and how often they ran.
void print_graphs(std::ostream& out, const std::vector<load::strategy_result>& results)
{
  for (auto const& r : results) {
    if (!r.graphs) continue;
    auto const& g = *r.graphs;
    out << "\ngraphs (" << r.label << "): " << g.entries << " cached (at most " << g.max_entries << "), "
        << mib(g.peak_bytes) << " MiB at the peak (at most " << mib(g.max_bytes) << "), " << mib(g.device_peak)
        << " MiB of it on the device; " << g.replays << " replays, " << g.captures << " captures, " << g.evictions
        << " evicted, " << g.refusals << " eager for room, " << g.failures << " failed captures\n";
  }
}

// --batch-window-us: how many calls the jobs were priced with.
void print_batching(std::ostream& out, const std::vector<load::strategy_result>& results)
{
  for (auto const& r : results) {
    if (r.mean_batch_calls <= 1.0) continue;
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", r.mean_batch_calls);
    out << "\nbatching (" << r.label << "): a job was priced with " << buf << " calls on average, its own included\n";
  }
}

void print_load_table(std::ostream& out, const std::vector<load::strategy_result>& results)
{
  char line[512];
  std::snprintf(line, sizeof line,
                "%-16s %9s %11s %8s %8s %8s %9s %9s %9s %9s %9s %9s %8s %8s %8s %8s %5s %5s %5s %6s %6s %6s %6s %9s\n",
                "allocator", "jobs/s", "paths/s", "p50 ms", "p99 ms", "max ms", "alloc p50", "alloc p99", "req MiB",
                "dev MiB", "grant MiB", "resv MiB", "drv MiB", "held MiB", "held/req", "held/dev", "oom", "retry", "caps", "waits", "memw",
                "idle%", "failed", "bits");
  out << line;
  for (auto const& r : results) {
    std::snprintf(
        line, sizeof line,
        "%-16s %9.1f %11.4g %8.2f %8.2f %8.2f %7.2fus %7.2fus %9s %9s %9s %9s %8s %8s %8.2f %8s %5llu %5llu %5llu "
        "%6llu %6llu %6s %6zu %9s\n",
        r.label.c_str(), r.jobs_per_s, r.paths_per_s, r.latency_p50_ms, r.latency_p99_ms, r.latency_max_ms,
        r.alloc_latency_p50_us, r.alloc_latency_p99_us, mib(r.peak_requested).c_str(),
        r.peak_device_requested != 0 ? mib(r.peak_device_requested).c_str() : "-", mib(r.peak_granted).c_str(),
        mib(r.peak_reserved).c_str(), r.peak_driver_reserved != 0 ? mib(r.peak_driver_reserved).c_str() : "-",
        mib(r.peak_held).c_str(),
        r.peak_requested != 0 ? static_cast<double>(r.peak_held) / static_cast<double>(r.peak_requested) : 0.0,
        held_over(r.peak_held, r.peak_device_requested).c_str(),
        static_cast<unsigned long long>(r.out_of_memory), static_cast<unsigned long long>(r.retries + r.job_retries),
        static_cast<unsigned long long>(r.cap_rejections), static_cast<unsigned long long>(r.cross_stream_waits),
        static_cast<unsigned long long>(r.memory_waits), r.device_idle < 0.0 ? "-" : percent(r.device_idle).c_str(),
        r.failed_trades, r.identical ? "identical" : "DIFFER");
    out << line;
  }
  out << "\nfragmentation, MiB at peak reserved / time-weighted mean (- where the allocator does not show it):\n";
  std::snprintf(line, sizeof line, "%-16s %19s %19s %19s %19s\n", "allocator", "internal", "cached-unused", "external",
                "non-releasable");
  out << line;
  for (auto const& r : results) {
    auto const pair = [](double peak, double mean, bool shown) {
      return shown ? mib(static_cast<std::size_t>(peak)) + " / " + mib(static_cast<std::size_t>(mean))
                   : std::string("-");
    };
    auto const& p = r.fragmentation_peak;
    auto const& m = r.fragmentation_mean;
    std::snprintf(line, sizeof line, "%-16s %19s %19s %19s %19s\n", r.label.c_str(),
                  pair(p.internal, m.internal, true).c_str(), pair(p.cached_unused, m.cached_unused, true).c_str(),
                  pair(p.external, m.external, r.blocks_visible).c_str(),
                  pair(p.non_releasable, m.non_releasable, r.blocks_visible).c_str());
    out << line;
  }
  print_slow_paths(out, results);
  print_graphs(out, results);
  print_batching(out, results);
}

nlohmann::json graphs_json(const load::strategy_result& r)
{
  if (!r.graphs) return nullptr;
  auto const& g = *r.graphs;
  return {{"entries", g.entries},     {"max_entries", g.max_entries},       {"peak_bytes", g.peak_bytes},
          {"max_bytes", g.max_bytes}, {"device_peak_bytes", g.device_peak}, {"replays", g.replays},
          {"captures", g.captures},   {"evictions", g.evictions},           {"refusals", g.refusals},
          {"failures", g.failures}};
}

nlohmann::json load_report_json(const command_line& cl, const std::vector<load::strategy_result>& results)
{
  nlohmann::json mix = nlohmann::json::array();
  for (auto const& c : cl.load.mix)
    mix.push_back({{"name", c.name}, {"weight", c.weight}, {"trades", c.trades}, {"paths", c.paths}});
  char const* patterns[] = {"steady", "bursts", "ramp"};
  auto const frag = [](const load::fragmentation& f, bool shown) {
    nlohmann::json j = {{"internal", f.internal}, {"cached_unused", f.cached_unused}, {"reserved", f.reserved}};
    j["external"] = shown ? nlohmann::json(f.external) : nlohmann::json(nullptr);
    j["non_releasable"] = shown ? nlohmann::json(f.non_releasable) : nlohmann::json(nullptr);
    return j;
  };
  nlohmann::json strategies = nlohmann::json::array();
  for (auto const& r : results) {
    nlohmann::json memory = nlohmann::json::array();
    for (auto const& s : r.memory) {
      memory.push_back({s.t_s, s.requested, s.granted, s.reserved, s.largest_free, s.pending_free, s.streams_busy,
                        s.driver_reserved});
    }
    strategies.push_back(
        {{"allocator", r.allocator},
         {"label", r.label},
         {"pool_limit_bytes", r.pool_limit},
         {"wall_s", r.wall_s},
         {"jobs_per_s", r.jobs_per_s},
         {"paths_per_s", r.paths_per_s},
         {"latency_ms", {{"p50", r.latency_p50_ms}, {"p99", r.latency_p99_ms}, {"max", r.latency_max_ms}}},
         {"job_latencies_ms", r.latencies_ms},
         {"allocation_latency_us",
          {{"p50", r.alloc_latency_p50_us},
           {"p99", r.alloc_latency_p99_us},
           {"slow_p50", r.slow_latency_p50_us},
           {"slow_p99", r.slow_latency_p99_us},
           {"growth_p50", r.growth_latency_p50_us},
           {"growth_p99", r.growth_latency_p99_us}}},
         {"allocation_paths",
          {{"allocations", r.allocations},
           {"slow", r.slow_paths},
           {"larger_blocks", r.larger_reuses},
           {"growths", r.growths}}},
         {"device_idle_fraction", r.device_idle < 0.0 ? nlohmann::json(nullptr) : nlohmann::json(r.device_idle)},
         {"submitters_busy_fraction", r.submitters_busy},
         {"peak_bytes",
          {{"requested", r.peak_requested},
           {"device_requested",
            r.peak_device_requested != 0 ? nlohmann::json(r.peak_device_requested) : nlohmann::json(nullptr)},
           {"granted", r.peak_granted},
           {"reserved", r.peak_reserved},
           {"driver_reserved", r.peak_driver_reserved},
           {"held", r.peak_held}}},
         {"fragmentation_bytes",
          {{"at_peak", frag(r.fragmentation_peak, r.blocks_visible)},
           {"time_weighted", frag(r.fragmentation_mean, r.blocks_visible)}}},
         {"counts",
          {{"out_of_memory", r.out_of_memory},
           {"retries", r.retries},
           {"cap_rejections", r.cap_rejections},
           {"cross_stream_waits", r.cross_stream_waits},
           {"memory_waits", r.memory_waits},
           {"memory_wait_s", r.memory_wait_s},
           {"job_retries", r.job_retries},
           {"failed_trades", r.failed_trades}}},
         {"graphs", graphs_json(r)},
         {"mean_batch_calls", r.mean_batch_calls},
         {"identical_to_reference", r.identical},
         {"memory_columns",
          {"t_s", "requested", "granted", "reserved", "largest_free", "pending_free", "streams_busy",
           "driver_reserved"}},
         {"memory", memory}});
  }
  return {{"load_test",
           {{"seed", cl.load.seed},
            {"jobs", cl.load.jobs},
            {"pattern", patterns[static_cast<int>(cl.load.pattern)]},
            {"rate_per_s", cl.load.rate},
            {"burst_size", cl.load.burst_size},
            {"mix", mix},
            {"submitters", cl.load_threads},
            {"streams", cl.engine.streams},
            {"pressures", cl.load_pressures},
            {"reference", results.empty() ? "" : results.front().label}}},
          {"strategies", strategies}};
}

int run_load_test(const command_line& cl, std::ostream& table, std::ostream& log)
{
  if (!cl.load_from.empty()) {
    std::ifstream in(cl.load_from);
    if (!in) throw input_error({cl.load_from, 0, 0}, "cannot open the load report");
    nlohmann::json report;
    try {
      report = nlohmann::json::parse(in);
      write_file_atomically(cl.load_html, load_report_html(report));
    } catch (const nlohmann::json::exception& e) {
      throw input_error({cl.load_from, 0, 0}, std::string("not a load-test report: ") + e.what());
    }
    return 0;
  }
  market_data const market = read_market_file(cl.market);
  if (cl.load_find_max) return run_load_ceiling(cl, market, table, log);
  auto const stream = load::make_stream(cl.load, market);
  load::run_options ro;
  ro.submitters = cl.load_threads;
  std::vector<load::strategy_result> results;
  load::job_bits reference;
  bool profiled = false;  // --memory-profile: the first unlimited bucketed run's allocations
  auto const run = [&](allocator_kind a, std::size_t limit, const std::string& pressure,
                       const engine_options* settings = nullptr) {
    engine_options o = settings != nullptr ? *settings : cl.engine;
    o.allocator = a;
    if (limit != 0) o.pool_limit_bytes = limit;
    bool const profile = !cl.memory_profile.empty() && !profiled && a == allocator_kind::bucketed && limit == 0;
    o.record_allocations = profile;
    engine const e(market, o);
    auto const name = e.memory() ? e.memory()->allocator : std::string("cpu");
    if (!cl.quiet) log << "load test: " << cl.load.jobs << " jobs through " << name << pressure << "\n";
    load::job_bits bits;
    bool const first = results.empty();
    results.push_back(load::run_stream(e, stream, ro, bits, first ? nullptr : &reference));
    results.back().label += pressure;
    results.back().pool_limit = o.pool_limit_bytes;
    if (first) reference = std::move(bits);
    if (profile && e.memory() && e.memory()->profile) {
      write_file_atomically(cl.memory_profile, profile_to_json(*e.memory()->profile, o.device).dump() + "\n");
      profiled = true;
    }
    return e.backend();
  };
  // On the CPU backend the allocators do not apply: one run.
  for (allocator_kind a : cl.allocators) {
    if (run(a, 0, "") == backend_kind::cpu) break;
  }
  // Pressure: for each allocator a share of the peak live bytes its own unlimited run requested,
  // so every strategy is squeezed by the same share of what it needed.
  std::size_t const unlimited = results.size();
  bool const gpu = results.front().allocator != "cpu";
  if (gpu) {
    for (double share : cl.load_pressures) {
      char label[32];
      std::snprintf(label, sizeof label, "@%g%%", share * 100.0);
      for (std::size_t k = 0; k < unlimited; ++k) {
        auto const limit = static_cast<std::size_t>(share * static_cast<double>(results[k].peak_requested));
        if (limit == 0) {
          log << "load test: no pressure run for " << results[k].label << " (it requested no scratch)\n";
          continue;
        }
        run(cl.allocators[k], limit, label);
      }
    }
  } else if (!cl.load_pressures.empty()) {
    log << "load test: no pressure runs on the CPU backend\n";
  }
  // --memory-settings: the bucketed pool again with the file's size classes and job cap (its
  // limit stays out: limits are the pressure runs' business), on the same stream.
  bool const bucketed = std::find(cl.allocators.begin(), cl.allocators.end(), allocator_kind::bucketed) !=
                        cl.allocators.end();
  if (!cl.memory_settings.empty() && gpu && bucketed) {
    engine_options settings = cl.engine;
    bool const cap_given = std::find(cl.given.begin(), cl.given.end(), "job-cap") != cl.given.end();
    apply_memory_settings(cl.memory_settings, settings, cap_given, true);
    run(allocator_kind::bucketed, 0, "+settings", &settings);
  } else if (!cl.memory_settings.empty()) {
    log << "load test: --memory-settings applies to the bucketed pool on the GPU; no run with it\n";
  }
  if (!cl.memory_profile.empty() && !profiled) {
    log << "load test: --memory-profile records the bucketed pool's unlimited run on the GPU; nothing recorded\n";
  }
  print_load_table(table, results);
  if (!cl.load_json.empty() || !cl.load_html.empty()) {
    nlohmann::json const report = load_report_json(cl, results);
    if (!cl.load_json.empty()) write_file_atomically(cl.load_json, report.dump(1) + "\n");
    if (!cl.load_html.empty()) write_file_atomically(cl.load_html, load_report_html(report));
  }
  bool ok = true;
  for (auto const& r : results) ok = ok && r.identical && r.failed_trades == 0;
  return ok ? 0 : 2;
}

}  // namespace mcprice::cli
