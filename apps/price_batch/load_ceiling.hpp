#pragma once
// `price-batch --load-test --load-find-max`: the highest offered load the engine sustains within
// a latency objective, per allocator. The offered rate doubles from --load-rate while a run keeps
// its p99 job latency within the objective and the achieved rate up with the offered one, then
// the last rate kept and the first broken are bisected (geometrically). Each step is a whole run
// of the same seeded stream at that rate through a fresh engine, so its peaks are its own.
#include "load_runner.hpp"

#include <functional>
#include <string>
#include <vector>

namespace mcprice::load {

struct ceiling_options {
  double slo_ms{50.0};  // p99 job latency, arrival to results
  double start_rate{2000.0};
  int max_doublings{10};  // and as many halvings when the start rate already breaks it
  int bisections{3};
  double keep_up{0.9};  // a run within the objective also achieves this share of the offered rate
  // Each step offers at least this many seconds of arrivals: a short run ends before a backlog
  // builds (4,000 jobs at 24,000/s met the objective in 0.17 s; 1.2 M jobs at 16,000/s fell
  // behind at 13,200/s on the same H200, 2026-12-02).
  double min_step_seconds{2.0};
  // Each step's fresh engine first runs this many seconds of the step's arrivals, unmeasured:
  // the ceiling is a steady state, and a cold pool's first growths (mapping pages for the large
  // jobs' blocks) put 1-2% of a 2,000 jobs/s step beyond 50 ms on the H200, so that the search
  // went down from its first step and reported 1,834 jobs/s for a pool that sustains 5,000.
  double warmup_seconds{0.25};
};

// The jobs a step's warm-up runs: warmup_seconds of arrivals at `rate`, at least 100.
std::size_t warmup_jobs(const ceiling_options& o, double rate);

// The jobs a step at `rate` runs: the stream's own count, or more to fill min_step_seconds.
std::size_t step_jobs(const ceiling_options& o, std::size_t jobs, double rate);

struct ceiling_step {
  double offered_per_s{0.0};
  bool within{false};
  strategy_result result;
};

// Whether a run at `offered` jobs/s meets the objective.
bool within_objective(const strategy_result& r, double offered, const ceiling_options& o);

// The steps of the search, in the order run; measure(rate) runs the stream at `rate`.
std::vector<ceiling_step> find_ceiling(const ceiling_options& o, const std::function<strategy_result(double)>& measure);

// The step with the highest offered rate within the objective, or nullptr.
const ceiling_step* sustainable(const std::vector<ceiling_step>& steps);

}  // namespace mcprice::load
