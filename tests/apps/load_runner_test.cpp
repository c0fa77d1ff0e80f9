// The load runner on the CPU backend: every job priced once with the bits a lone call gives, a
// reference comparison that can fail, and the latency percentiles it reports.
#include "load_runner.hpp"
#include "catch.hpp"
#include "mcprice/market_reader.hpp"
#include "mcprice/memory/latency_histogram.hpp"

using namespace mcprice;

namespace {

// An engine on the CPU backend with one thread of its own.
engine one_thread_engine(const market_data& market)
{
  engine_options eo;
  eo.backend = backend_choice::cpu;
  eo.threads = 1;
  return engine(market, eo);
}

}  // namespace

TEST_CASE("load statistics: latency percentiles")
{
  CHECK(percentile({}, 0.5) == 0.0);
  std::vector<double> v;
  for (int i = 100; i >= 1; --i) v.push_back(i);
  CHECK(percentile(v, 0.50) == 50.0);
  CHECK(percentile(v, 0.99) == 99.0);
  CHECK(percentile(v, 1.00) == 100.0);
  CHECK(percentile(v, 0.0) == 1.0);
}

TEST_CASE("the load runner prices every job from several threads with a lone call's bits", "[concurrency]")
{
  auto const market = parse_market(R"({"rate": 0.03, "assets": {"A": {"spot": 100, "vol": 0.2},
    "B": {"spot": 50, "vol": 0.3}}, "correlation": {"A,B": 0.4}})",
                                   "load");
  load::stream_options so;
  so.jobs = 24;
  so.rate = 5000.0;
  so.mix = load::parse_mix("tiny:1:2:256");
  auto const stream = load::make_stream(so, market);
  engine const e = one_thread_engine(market);
  load::run_options ro;
  ro.submitters = 3;
  load::job_bits first;
  auto const a = load::run_stream(e, stream, ro, first, nullptr);
  CHECK(a.allocator == "cpu");
  CHECK(a.failed_trades == 0);
  CHECK(a.jobs_per_s > 0.0);
  CHECK(a.latency_p50_ms <= a.latency_p99_ms);
  CHECK(a.latency_p99_ms <= a.latency_max_ms);
  CHECK(a.memory.empty());  // no GPU memory to sample
  // Each job alone gives the bits the runner recorded.
  for (std::size_t i = 0; i < stream.size(); i += 7) {
    auto const alone = e.price(stream[i].book);
    REQUIRE(first[i].size() == 2 * alone.results.size());
    CHECK(first[i][0] == alone.results[0].price);
  }
  load::job_bits second;
  CHECK(load::run_stream(e, stream, ro, second, &first).identical);
  first[5][0] += 1e-9;  // a reference that differs is caught
  load::job_bits third;
  CHECK_FALSE(load::run_stream(e, stream, ro, third, &first).identical);
}

TEST_CASE("the load runner reports how much of the run its callers spent inside calls", "[concurrency]")
{
  auto const market = parse_market(R"({"rate": 0.03, "assets": {"A": {"spot": 100, "vol": 0.2}}})", "load");
  engine const e = one_thread_engine(market);
  load::run_options ro;
  ro.submitters = 1;
  load::stream_options so;
  so.mix = load::parse_mix("tiny:1:1:4096");
  load::job_bits bits;
  // Every job due at once: the one caller goes from call to call.
  so.jobs = 40;
  so.rate = 1e9;
  auto const flooded = load::run_stream(e, load::make_stream(so, market), ro, bits, nullptr);
  CHECK(flooded.submitters == 1);
  CHECK(flooded.submitters_busy > 0.8);
  CHECK(flooded.submitters_busy <= 1.0 + 1e-9);
  // Small jobs arriving steadily 10 ms apart: the caller mostly waits for them (a call takes
  // well under a millisecond, a few under the sanitizers).
  so.mix = load::parse_mix("tiny:1:1:256");
  so.jobs = 10;
  so.rate = 100.0;
  so.pattern = load::arrival_pattern::steady;
  auto const sparse = load::run_stream(e, load::make_stream(so, market), ro, bits, nullptr);
  CHECK(sparse.submitters_busy < 0.5);
}
