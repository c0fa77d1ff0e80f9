#include "load_test.hpp"

#include "mcprice/market_reader.hpp"
#include "output_file.hpp"

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

}  // namespace

void print_load_table(std::ostream& out, const std::vector<load::strategy_result>& results)
{
  char line[512];
  std::snprintf(line, sizeof line, "%-14s %9s %11s %9s %9s %9s %9s %9s %11s %11s %11s %5s %6s %9s\n", "allocator",
                "jobs/s", "paths/s", "p50 ms", "p99 ms", "max ms", "alloc p50", "alloc p99", "req MiB", "grant MiB",
                "resv MiB", "oom", "waits", "bits");
  out << line;
  for (auto const& r : results) {
    std::snprintf(line, sizeof line, "%-14s %9.1f %11.4g %9.2f %9.2f %9.2f %8.2fus %8.2fus %11s %11s %11s %5llu %6llu %9s\n",
                  r.allocator.c_str(), r.jobs_per_s, r.paths_per_s, r.latency_p50_ms, r.latency_p99_ms,
                  r.latency_max_ms, r.alloc_latency_p50_us, r.alloc_latency_p99_us, mib(r.peak_requested).c_str(),
                  mib(r.peak_granted).c_str(), mib(r.peak_reserved).c_str(),
                  static_cast<unsigned long long>(r.out_of_memory + r.retries),
                  static_cast<unsigned long long>(r.cross_stream_waits), r.identical ? "identical" : "DIFFER");
    out << line;
  }
}

nlohmann::json load_report_json(const command_line& cl, const std::vector<load::strategy_result>& results)
{
  nlohmann::json mix = nlohmann::json::array();
  for (auto const& c : cl.load.mix) mix.push_back({{"name", c.name}, {"weight", c.weight}, {"trades", c.trades}, {"paths", c.paths}});
  char const* patterns[] = {"steady", "bursts", "ramp"};
  nlohmann::json strategies = nlohmann::json::array();
  for (auto const& r : results) {
    nlohmann::json memory = nlohmann::json::array();
    for (auto const& s : r.memory) memory.push_back({s.t_s, s.requested, s.granted, s.reserved});
    strategies.push_back({{"allocator", r.allocator},
                          {"wall_s", r.wall_s},
                          {"jobs_per_s", r.jobs_per_s},
                          {"paths_per_s", r.paths_per_s},
                          {"latency_ms", {{"p50", r.latency_p50_ms}, {"p99", r.latency_p99_ms}, {"max", r.latency_max_ms}}},
                          {"allocation_latency_us", {{"p50", r.alloc_latency_p50_us}, {"p99", r.alloc_latency_p99_us}}},
                          {"peak_bytes", {{"requested", r.peak_requested}, {"granted", r.peak_granted}, {"reserved", r.peak_reserved}}},
                          {"counts",
                           {{"out_of_memory", r.out_of_memory},
                            {"retries", r.retries},
                            {"cap_rejections", r.cap_rejections},
                            {"cross_stream_waits", r.cross_stream_waits},
                            {"failed_trades", r.failed_trades}}},
                          {"identical_to_reference", r.identical},
                          {"memory_columns", {"t_s", "requested", "granted", "reserved"}},
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
            {"reference", results.empty() ? "" : results.front().allocator}}},
          {"strategies", strategies}};
}

int run_load_test(const command_line& cl, std::ostream& table, std::ostream& log)
{
  market_data const market = read_market_file(cl.market);
  auto const stream = load::make_stream(cl.load, market);
  load::run_options ro;
  ro.submitters = cl.load_threads;
  std::vector<load::strategy_result> results;
  load::job_bits reference;
  // On the CPU backend the allocators do not apply: one run.
  std::vector<allocator_kind> allocators = cl.allocators;
  for (std::size_t k = 0; k < allocators.size(); ++k) {
    engine_options o = cl.engine;
    o.allocator = allocators[k];
    engine const e(market, o);
    if (k == 0 && e.backend() == backend_kind::cpu) allocators.resize(1);
    if (!cl.quiet) log << "load test: " << cl.load.jobs << " jobs through " << (e.memory() ? e.memory()->allocator : "cpu") << "\n";
    load::job_bits bits;
    results.push_back(load::run_stream(e, stream, ro, bits, k == 0 ? nullptr : &reference));
    if (k == 0) reference = std::move(bits);
  }
  print_load_table(table, results);
  if (!cl.load_json.empty()) write_file_atomically(cl.load_json, load_report_json(cl, results).dump(1) + "\n");
  bool ok = true;
  for (auto const& r : results) ok = ok && r.identical && r.failed_trades == 0;
  return ok ? 0 : 2;
}

}  // namespace mcprice::cli
