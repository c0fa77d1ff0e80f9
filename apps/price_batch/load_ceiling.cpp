#include "load_ceiling.hpp"

#include <algorithm>
#include <cmath>

namespace mcprice::load {

bool within_objective(const strategy_result& r, double offered, const ceiling_options& o)
{
  return r.failed_trades == 0 && r.identical && r.latency_p99_ms <= o.slo_ms && r.jobs_per_s >= o.keep_up * offered;
}

std::vector<ceiling_step> find_ceiling(const ceiling_options& o, const std::function<strategy_result(double)>& measure)
{
  std::vector<ceiling_step> steps;
  auto const step = [&](double rate) {
    ceiling_step s{rate, false, measure(rate)};
    s.within = within_objective(s.result, rate, o);
    steps.push_back(std::move(s));
    return steps.back().within;
  };
  // Bracket: `good` the highest rate within the objective, `bad` the lowest above it broken.
  double good = 0.0;
  double bad = 0.0;
  double rate = o.start_rate;
  if (step(rate)) {
    good = rate;
    for (int k = 0; k < o.max_doublings && bad == 0.0; ++k) {
      rate *= 2.0;
      if (step(rate)) good = rate;
      else bad = rate;
    }
  } else {
    bad = rate;
    for (int k = 0; k < o.max_doublings && good == 0.0; ++k) {
      rate /= 2.0;
      if (step(rate)) good = rate;
      else bad = rate;
    }
  }
  if (good == 0.0 || bad == 0.0) return steps;  // never met, or never broken within the doublings
  for (int k = 0; k < o.bisections; ++k) {
    double const mid = std::sqrt(good * bad);
    if (step(mid)) good = mid;
    else bad = mid;
  }
  return steps;
}

std::size_t step_jobs(const ceiling_options& o, std::size_t jobs, double rate)
{
  return std::max(jobs, static_cast<std::size_t>(std::ceil(rate * o.min_step_seconds)));
}

std::size_t warmup_jobs(const ceiling_options& o, double rate)
{
  return std::max<std::size_t>(100, static_cast<std::size_t>(std::ceil(rate * o.warmup_seconds)));
}

const ceiling_step* sustainable(const std::vector<ceiling_step>& steps)
{
  const ceiling_step* best = nullptr;
  for (auto const& s : steps) {
    if (s.within && (best == nullptr || s.offered_per_s > best->offered_per_s)) best = &s;
  }
  return best;
}

}  // namespace mcprice::load
