// The load test's ceiling search on a synthetic engine: it brackets the capacity by doubling or
// halving, bisects, and names the highest rate within the objective.
#include "load_ceiling.hpp"
#include "catch.hpp"

#include <algorithm>

using namespace mcprice::load;

namespace {

// An engine that keeps up to `capacity` jobs/s at 10 ms p99 and falls behind beyond it.
strategy_result synthetic(double rate, double capacity)
{
  strategy_result r;
  r.jobs_per_s = std::min(rate, capacity);
  r.latency_p99_ms = rate <= capacity ? 10.0 : 200.0;
  return r;
}

}  // namespace

TEST_CASE("the ceiling search doubles to a break, then bisects to within an eighth of a doubling")
{
  ceiling_options o;
  o.start_rate = 1000.0;
  double const capacity = 11'000.0;
  auto const steps = find_ceiling(o, [&](double rate) { return synthetic(rate, capacity); });
  const ceiling_step* best = sustainable(steps);
  REQUIRE(best != nullptr);
  CHECK(best->offered_per_s <= capacity);
  CHECK(best->offered_per_s >= capacity / 1.0905);  // 2^(1/8): three bisections of a doubling
  // 1000, 2000, 4000, 8000 within; 16000 broken; then three bisections.
  CHECK(steps.size() == 8);
  CHECK(steps[4].within == false);
}

TEST_CASE("the ceiling search halves when the starting rate already breaks the objective")
{
  ceiling_options o;
  o.start_rate = 8000.0;
  auto const steps = find_ceiling(o, [&](double rate) { return synthetic(rate, 900.0); });
  const ceiling_step* best = sustainable(steps);
  REQUIRE(best != nullptr);
  CHECK(best->offered_per_s <= 900.0);
  CHECK(best->offered_per_s >= 900.0 / 1.0905);
  CHECK(steps.front().within == false);
}

TEST_CASE("a run that falls behind the offered rate, fails trades or changes bits is not within the objective")
{
  ceiling_options o;
  strategy_result r;
  r.jobs_per_s = 950.0;
  r.latency_p99_ms = 20.0;
  CHECK(within_objective(r, 1000.0, o));
  r.jobs_per_s = 850.0;
  CHECK_FALSE(within_objective(r, 1000.0, o));
  r.jobs_per_s = 1000.0;
  r.latency_p99_ms = 60.0;
  CHECK_FALSE(within_objective(r, 1000.0, o));
  r.latency_p99_ms = 20.0;
  r.failed_trades = 1;
  CHECK_FALSE(within_objective(r, 1000.0, o));
  r.failed_trades = 0;
  r.identical = false;
  CHECK_FALSE(within_objective(r, 1000.0, o));
}

TEST_CASE("an engine never broken within the doublings reports its highest step, and one never within none")
{
  ceiling_options o;
  o.start_rate = 100.0;
  o.max_doublings = 3;
  auto const steps = find_ceiling(o, [](double rate) { return synthetic(rate, 1e9); });
  REQUIRE(sustainable(steps) != nullptr);
  CHECK(sustainable(steps)->offered_per_s == 800.0);
  auto const none = find_ceiling(o, [](double rate) { return synthetic(rate, 1.0); });
  CHECK(sustainable(none) == nullptr);
}

TEST_CASE("a ceiling step offers at least min_step_seconds of arrivals")
{
  ceiling_options o;
  o.min_step_seconds = 2.0;
  CHECK(step_jobs(o, 4000, 1000.0) == 4000);     // the stream already spans 4 s
  CHECK(step_jobs(o, 4000, 24000.0) == 48000);   // 0.17 s of arrivals: stretched to 2 s
  CHECK(step_jobs(o, 4000, 2500.5) == 5001);     // rounded up
}

TEST_CASE("a ceiling step's fresh engine warms up on a quarter second of its arrivals first")
{
  ceiling_options o;
  CHECK(warmup_jobs(o, 2000.0) == 500);
  CHECK(warmup_jobs(o, 100.0) == 100);  // at least 100 jobs, so that a few large ones come
  o.warmup_seconds = 0.0;
  CHECK(warmup_jobs(o, 2000.0) == 100);
}
