#pragma once
// Runs a load test's job stream through one engine (groundwork for `price-batch --load-test`):
// `submitters` host threads take the jobs in order, each no earlier than its arrival time, while
// a sampler reads the engine's memory report. Per allocator strategy: throughput, job latency
// (arrival to results, so queueing counts), allocation latency, memory peaks and the memory
// over time, failure and wait counts, and whether every job's bits equal a reference run's.
#include "load_fragmentation.hpp"
#include "load_stream.hpp"
#include "mcprice/engine.hpp"
#include "mcprice/memory/memory_statistics.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mcprice::load {

struct strategy_result {
  std::string allocator;      // the engine's scratch allocator ("cpu" on the CPU backend)
  std::string label;          // the allocator, with the pressure ("bucketed@90%") under a limit
  std::size_t pool_limit{0};  // --pool-limit bytes of this run (0: none)
  double wall_s{0.0};
  double jobs_per_s{0.0};
  double paths_per_s{0.0};
  double latency_p50_ms{0.0};
  double latency_p99_ms{0.0};
  double latency_max_ms{0.0};
  double alloc_latency_p50_us{0.0};
  double alloc_latency_p99_us{0.0};
  // The bucketed pool's slow paths (pool_statistics): how many, and their host time, and the
  // upstream's time for its growths; where the allocation tail comes from.
  std::uint64_t allocations{0};
  std::uint64_t slow_paths{0};
  std::uint64_t larger_reuses{0};
  std::uint64_t growths{0};
  double slow_latency_p50_us{0.0};
  double slow_latency_p99_us{0.0};
  double growth_latency_p50_us{0.0};
  double growth_latency_p99_us{0.0};
  std::size_t peak_requested{0};
  // The bucketed pool's peak need on the device's timeline (pool_statistics::device_requested):
  // a stream-ordered free ends a request on the host before its kernels end. 0: not known.
  std::size_t peak_device_requested{0};
  std::size_t peak_granted{0};
  std::size_t peak_reserved{0};         // held by the strategy's allocator from its upstream
  std::size_t peak_driver_reserved{0};  // the CUDA driver pool's high-water mark (pool, bucketed, async-default)
  std::size_t peak_held{0};             // every byte held from the driver, at its peak (memory_report::held_peak)
  std::uint64_t out_of_memory{0};       // allocations refused with out of memory (after any retry)
  std::uint64_t retries{0};             // out-of-memory retries after a trim (bucketed)
  std::uint64_t cap_rejections{0};
  std::uint64_t cross_stream_waits{0};
  std::uint64_t memory_waits{0};  // jobs that waited for room under the pool limit
  double memory_wait_s{0.0};      // their total wait
  std::uint64_t job_retries{0};   // jobs that gave their scratch back and came again
  double device_idle{-1.0};       // share of the run with no stream busy (-1: not measured)
  // The share of the run the submitting threads spent inside the engine's calls, averaged over
  // them. Near 1, every submitter was always waiting on a call: the offered load was bounded by
  // the submitters (a closed loop of --load-threads callers), not by the engine.
  double submitters_busy{0.0};
  int submitters{0};
  fragmentation fragmentation_peak;
  fragmentation fragmentation_mean;  // time-weighted
  bool blocks_visible{false};        // external and non-releasable measured (the bucketed pool)
  std::vector<double> latencies_ms;  // every job's, in stream order
  std::size_t failed_trades{0};
  bool identical{true};  // every job that priced has the reference run's bits (prices, std errors)
  std::vector<memory_sample> memory;
  // --graphs on: the captured graphs' cache at the run's end (bytes: at its peak).
  std::optional<graph_cache_statistics> graphs;
  // --batch-window-us: the calls a job was priced with, its own included, averaged over the jobs
  // (1: every job alone).
  double mean_batch_calls{1.0};
};

struct run_options {
  int submitters{4};
  double sample_interval_s{0.002};
};

// The bits of every job's results (price and std error per trade), by job.
using job_bits = std::vector<std::vector<double>>;

strategy_result run_stream(const engine& e, const std::vector<job>& stream, const run_options& o, job_bits& bits,
                           const job_bits* reference);

}  // namespace mcprice::load
