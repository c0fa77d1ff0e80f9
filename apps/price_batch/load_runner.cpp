#include "load_runner.hpp"

#include "mcprice/memory/latency_histogram.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <numeric>
#include <thread>

namespace mcprice::load {
namespace {

using clock_type = std::chrono::steady_clock;

memory_sample sample_of(const memory_report& r, double t)
{
  memory_sample s{t, 0, 0, 0, 0, 0, r.streams_busy, r.driver ? r.driver->reserved_current : 0};
  if (r.scratch) {
    s.requested = r.scratch->requested;
    s.granted = r.scratch->allocated;
    s.reserved = r.scratch->reserved;
    s.largest_free = r.scratch->largest_free_block;
    s.pending_free = r.scratch->pending_free;
  } else if (r.requests) {
    // The plain pool: the driver's used and reserved bytes; cudaMalloc and the default pool
    // grant what is asked (their own rounding is not visible).
    s.requested = r.requests->requested;
    s.granted = r.driver ? r.driver->used_current : s.requested;
    s.reserved = r.driver ? r.driver->reserved_current : s.requested;
  }
  return s;
}

void take_counts(const memory_report& r, strategy_result& out)
{
  if (r.scratch) {
    const pool_statistics& p = *r.scratch;
    out.alloc_latency_p50_us = p.latency_p50_us;
    out.alloc_latency_p99_us = p.latency_p99_us;
    out.allocations = p.allocations;
    out.slow_paths = p.slow_paths;
    out.larger_reuses = p.larger_reuses;
    out.growths = p.upstream_grows;
    out.slow_latency_p50_us = p.slow_latency_p50_us;
    out.slow_latency_p99_us = p.slow_latency_p99_us;
    out.growth_latency_p50_us = p.growth_latency_p50_us;
    out.growth_latency_p99_us = p.growth_latency_p99_us;
    out.retries = p.oom_retries;
    out.out_of_memory = p.failures;
    out.cap_rejections = p.cap_rejections;
    out.cross_stream_waits = p.event_waits;
    out.peak_requested = std::max(out.peak_requested, p.requested_peak);
    out.peak_device_requested = std::max(out.peak_device_requested, p.device_requested_peak);
    out.peak_granted = std::max(out.peak_granted, p.allocated_peak);
    out.peak_reserved = std::max(out.peak_reserved, p.reserved_peak);
  }
  if (r.requests) {
    out.alloc_latency_p50_us = r.requests->latency_p50_us;
    out.alloc_latency_p99_us = r.requests->latency_p99_us;
    out.out_of_memory = r.requests->failures;
    out.peak_requested = std::max(out.peak_requested, r.requests->requested_peak);
  }
  // The bucketed pool's reserved bytes are what it holds from the explicit pool beneath; the
  // driver's own high-water mark (its 32 MiB chunks, its cache) is reported beside them.
  if (r.driver) {
    out.peak_driver_reserved = r.driver->reserved_high;
    if (!r.scratch) {
      out.peak_granted = std::max(out.peak_granted, r.driver->used_high);
      out.peak_reserved = std::max(out.peak_reserved, r.driver->reserved_high);
    }
  }
  out.peak_held = std::max(out.peak_held, r.held_peak);
  if (r.gate) {
    out.memory_waits = r.gate->waits;
    out.memory_wait_s = r.gate->wait_s;
  }
  out.job_retries = r.job_retries;
  out.blocks_visible = r.scratch.has_value();
  if (r.graphs) out.graphs = *r.graphs;
}

std::vector<double> bits_of(const pricing_run& run)
{
  std::vector<double> v;
  for (auto const& r : run.results) {
    v.push_back(r.price);
    v.push_back(r.std_error);
  }
  return v;
}

}  // namespace

strategy_result run_stream(const engine& e, const std::vector<job>& stream, const run_options& o, job_bits& bits,
                           const job_bits* reference)
{
  strategy_result out;
  auto const report = e.memory();
  out.allocator = report ? report->allocator : "cpu";
  out.label = out.allocator;
  bits.assign(stream.size(), {});
  std::vector<double> latency_ms(stream.size(), 0.0);
  std::vector<std::size_t> failed(stream.size(), 0);
  std::vector<std::size_t> batch_calls(stream.size(), 1);
  std::vector<double> call_s(stream.size(), 0.0);
  std::atomic<std::size_t> next{0};
  std::atomic<bool> done{false};
  auto const start = clock_type::now();
  auto const since_start = [&] { return std::chrono::duration<double>(clock_type::now() - start).count(); };

  std::thread sampler([&] {
    while (!done.load()) {
      if (auto const r = e.memory()) out.memory.push_back(sample_of(*r, since_start()));
      std::this_thread::sleep_for(std::chrono::duration<double>(o.sample_interval_s));
    }
  });
  std::vector<std::thread> submitters;
  for (int s = 0; s < std::max(1, o.submitters); ++s) {
    submitters.emplace_back([&] {
      for (std::size_t i = next.fetch_add(1); i < stream.size(); i = next.fetch_add(1)) {
        auto const due = start + std::chrono::duration_cast<clock_type::duration>(
                                     std::chrono::duration<double>(stream[i].arrival_s));
        std::this_thread::sleep_until(due);
        auto const called = clock_type::now();
        auto const run = e.price(stream[i].book);
        auto const returned = clock_type::now();
        latency_ms[i] = std::chrono::duration<double, std::milli>(returned - due).count();
        call_s[i] = std::chrono::duration<double>(returned - called).count();
        bits[i] = bits_of(run);
        failed[i] = run.summary.failed;
        batch_calls[i] = run.summary.batch_calls;
      }
    });
  }
  for (auto& t : submitters) t.join();
  out.wall_s = since_start();
  done = true;
  sampler.join();

  std::int64_t paths = 0;
  for (std::size_t i = 0; i < stream.size(); ++i) {
    paths += stream[i].paths;
    out.failed_trades += failed[i];
    // A job with failed trades (out of memory under pressure) is counted as failed, not as
    // different: the bits compared are those of the jobs that priced.
    if (reference != nullptr && failed[i] == 0 && i < reference->size()) {
      auto const& ref = (*reference)[i];
      out.identical = out.identical && ref.size() == bits[i].size() &&
                      std::memcmp(ref.data(), bits[i].data(), sizeof(double) * ref.size()) == 0;
    }
  }
  out.jobs_per_s = static_cast<double>(stream.size()) / out.wall_s;
  out.submitters = std::max(1, o.submitters);
  out.submitters_busy = std::accumulate(call_s.begin(), call_s.end(), 0.0) / (out.wall_s * out.submitters);
  if (!stream.empty()) {
    double calls = 0.0;
    for (std::size_t const c : batch_calls) calls += static_cast<double>(c);
    out.mean_batch_calls = calls / static_cast<double>(stream.size());
  }
  out.paths_per_s = static_cast<double>(paths) / out.wall_s;
  out.latency_p50_ms = percentile(latency_ms, 0.50);
  out.latency_p99_ms = percentile(latency_ms, 0.99);
  out.latency_max_ms = latency_ms.empty() ? 0.0 : *std::max_element(latency_ms.begin(), latency_ms.end());
  out.latencies_ms = std::move(latency_ms);
  out.fragmentation_peak = fragmentation_at_peak(out.memory);
  out.fragmentation_mean = fragmentation_time_weighted(out.memory);
  out.device_idle = device_idle_fraction(out.memory);
  auto const final_report = e.memory();
  if (final_report) take_counts(*final_report, out);
  for (auto const& s : out.memory) {
    out.peak_requested = std::max(out.peak_requested, s.requested);
    out.peak_granted = std::max(out.peak_granted, s.granted);
    out.peak_reserved = std::max(out.peak_reserved, s.reserved);
  }
  // cudaMalloc and the default pool show no rounding or cache of their own: what they grant and
  // hold is taken as what was asked (the adaptor's exact peak, not the 2 ms samples').
  if (final_report && !final_report->scratch && !final_report->driver) {
    out.peak_granted = out.peak_reserved = out.peak_requested;
  }
  return out;
}

}  // namespace mcprice::load
