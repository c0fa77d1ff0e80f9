// `price-batch --load-test --load-find-max`: the ceiling search per allocator, its table and its
// part of the JSON report (load_ceiling.hpp has the search).
#include "load_ceiling.hpp"
#include "load_report_html.hpp"
#include "load_test.hpp"
#include "output_file.hpp"

#include <cstdio>
#include <string>

namespace mcprice::cli {
namespace {

struct allocator_ceiling {
  std::string label;
  std::vector<load::ceiling_step> steps;
};

double ratio(std::size_t a, std::size_t b) { return b == 0 ? 0.0 : static_cast<double>(a) / static_cast<double>(b); }

// The submitters are a closed loop: each waits for its call before taking the next job, so the
// offered load they can carry is at most their count over a call's time. A ceiling reached with
// every submitter always inside a call says that, not what the engine holds.
void print_caller_bound(std::ostream& out, const std::vector<allocator_ceiling>& all)
{
  constexpr double saturated = 0.9;
  for (auto const& a : all) {
    const load::ceiling_step* best = load::sustainable(a.steps);
    if (best == nullptr || best->result.submitters_busy < saturated) continue;
    char line[256];
    std::snprintf(line, sizeof line,
                  "%s: at its ceiling the %d callers spent %.0f%% of the run inside calls: the callers, not the "
                  "engine, may bound it (raise --load-threads)\n",
                  a.label.c_str(), best->result.submitters, 100.0 * best->result.submitters_busy);
    out << line;
  }
}

void print_ceiling_table(std::ostream& out, const std::vector<allocator_ceiling>& all, const load::ceiling_options& o)
{
  char line[512];
  std::snprintf(line, sizeof line,
                "ceiling: the highest offered load with p99 job latency <= %.1f ms and >= %.0f%% of it achieved\n",
                o.slo_ms, 100.0 * o.keep_up);
  out << line;
  std::snprintf(line, sizeof line, "%-16s %10s %10s %11s %9s %8s %8s %8s %10s %8s %8s %9s %10s\n", "allocator",
                "offered/s", "jobs/s", "paths/s", "strm busy", "p50 ms", "p99 ms", "max ms", "held MiB", "held/req",
                "held/dev", "alloc p99", "callers");
  out << line;
  for (auto const& a : all) {
    const load::ceiling_step* best = load::sustainable(a.steps);
    if (best == nullptr) {
      out << a.label << ": no step met the objective\n";
      continue;
    }
    auto const& r = best->result;
    char busy[16] = "-";
    if (r.device_idle >= 0.0) std::snprintf(busy, sizeof busy, "%.1f%%", 100.0 * (1.0 - r.device_idle));
    std::snprintf(line, sizeof line,
                  "%-16s %10.1f %10.1f %11.4g %9s %8.2f %8.2f %8.2f %10.1f %8.2f %8s %7.2fus %3d %5.1f%%\n",
                  a.label.c_str(), best->offered_per_s, r.jobs_per_s, r.paths_per_s, busy, r.latency_p50_ms,
                  r.latency_p99_ms, r.latency_max_ms, static_cast<double>(r.peak_held) / 1048576.0,
                  ratio(r.peak_held, r.peak_requested), held_over(r.peak_held, r.peak_device_requested).c_str(),
                  r.alloc_latency_p99_us, r.submitters, 100.0 * r.submitters_busy);
    out << line;
  }
  print_caller_bound(out, all);
  out << "\nsteps (offered -> achieved jobs/s, p99 ms, within):\n";
  for (auto const& a : all) {
    out << a.label << ":";
    for (auto const& s : a.steps) {
      std::snprintf(line, sizeof line, " %.0f->%.0f %.1fms%s", s.offered_per_s, s.result.jobs_per_s,
                    s.result.latency_p99_ms, s.within ? "" : "*");
      out << line;
    }
    out << "\n";
  }
  out << "(* beyond the objective)\n\n";
}

nlohmann::json ceiling_json(const std::vector<allocator_ceiling>& all, const load::ceiling_options& o)
{
  nlohmann::json allocators = nlohmann::json::array();
  for (auto const& a : all) {
    nlohmann::json steps = nlohmann::json::array();
    for (auto const& s : a.steps) {
      auto const& r = s.result;
      steps.push_back(
          {{"offered_per_s", s.offered_per_s},
           {"within", s.within},
           {"jobs_per_s", r.jobs_per_s},
           {"paths_per_s", r.paths_per_s},
           {"gpu_busy_fraction", r.device_idle < 0.0 ? nlohmann::json(nullptr) : nlohmann::json(1.0 - r.device_idle)},
           {"latency_ms", {{"p50", r.latency_p50_ms}, {"p99", r.latency_p99_ms}, {"max", r.latency_max_ms}}},
           {"held_bytes", r.peak_held},
           {"graphs", graphs_json(r)},
           {"mean_batch_calls", r.mean_batch_calls},
           {"submitters", r.submitters},
           {"submitters_busy_fraction", r.submitters_busy},
           {"requested_bytes", r.peak_requested},
           {"device_requested_bytes",
            r.peak_device_requested != 0 ? nlohmann::json(r.peak_device_requested) : nlohmann::json(nullptr)}});
    }
    const load::ceiling_step* best = load::sustainable(a.steps);
    allocators.push_back({{"label", a.label},
                          {"steps", steps},
                          {"sustainable_offered_per_s", best ? nlohmann::json(best->offered_per_s) : nullptr}});
  }
  return {{"slo_ms", o.slo_ms}, {"keep_up", o.keep_up}, {"allocators", allocators}};
}

}  // namespace

int run_load_ceiling(const command_line& cl, const market_data& market, std::ostream& table, std::ostream& log)
{
  load::ceiling_options co;
  co.slo_ms = cl.load_slo_ms;
  co.start_rate = cl.load.rate;
  co.min_step_seconds = cl.load_step_seconds;
  load::run_options ro;
  ro.submitters = cl.load_threads;
  load::job_bits reference;
  bool have_reference = false;
  std::vector<allocator_ceiling> all;
  for (allocator_kind a : cl.allocators) {
    engine_options o = cl.engine;
    o.allocator = a;
    allocator_ceiling c;
    bool cpu = false;
    c.steps = load::find_ceiling(co, [&](double rate) {
      load::stream_options so = cl.load;
      so.rate = rate;
      so.jobs = load::step_jobs(co, so.jobs, rate);
      engine const e(market, o);
      cpu = e.backend() == backend_kind::cpu;
      c.label = cpu ? std::string("cpu") : e.memory()->allocator;
      if (!cl.quiet) log << "load test: " << so.jobs << " jobs at " << rate << "/s through " << c.label << "\n";
      load::job_bits bits;
      {
        load::stream_options warm = so;
        warm.jobs = load::warmup_jobs(co, rate);
        warm.seed = so.seed + 1;  // other jobs than the measured ones, of the same mix
        (void)load::run_stream(e, load::make_stream(warm, market), ro, bits, nullptr);
        bits.clear();
      }
      auto r = load::run_stream(e, load::make_stream(so, market), ro, bits, have_reference ? &reference : nullptr);
      // The reference grows with the longest run that matched it: the steps' streams share
      // their first jobs (the same seed), and later steps run more of them.
      if (!have_reference || (r.identical && r.failed_trades == 0 && bits.size() > reference.size())) {
        reference = std::move(bits);
        have_reference = true;
      }
      return r;
    });
    all.push_back(std::move(c));
    if (cpu) break;  // the allocators do not apply on the CPU backend: one search
  }
  print_ceiling_table(table, all, co);
  // The report's strategies are the sustainable steps' runs (or each allocator's first step).
  std::vector<load::strategy_result> best;
  for (auto const& c : all) {
    const load::ceiling_step* b = load::sustainable(c.steps);
    best.push_back(b != nullptr ? b->result : c.steps.front().result);
  }
  print_load_table(table, best);
  if (!cl.load_json.empty() || !cl.load_html.empty()) {
    nlohmann::json report = load_report_json(cl, best);
    report["ceiling"] = ceiling_json(all, co);
    if (!cl.load_json.empty()) write_file_atomically(cl.load_json, report.dump(1) + "\n");
    if (!cl.load_html.empty()) write_file_atomically(cl.load_html, load_report_html(report));
  }
  bool ok = true;
  for (auto const& c : all) ok = ok && load::sustainable(c.steps) != nullptr;
  return ok ? 0 : 2;
}

}  // namespace mcprice::cli
