#pragma once
// What the bucketed scratch pool reports: sizes current and peak, per-class traffic,
// cross-stream reuse, upstream traffic, failures, allocation latency and fragmentation.
#include <cstddef>
#include <cstdint>
#include <ostream>
#include <vector>

namespace mcprice {

struct class_statistics {
  std::size_t size{0};
  std::uint64_t hits{0};
  std::uint64_t misses{0};
  std::size_t live_blocks{0};
  std::size_t cached_blocks{0};
};

struct pool_statistics {
  std::size_t requested{0};  // R: bytes asked for by live allocations
  std::size_t requested_peak{0};
  std::size_t allocated{0};  // A: live bytes after rounding to classes
  std::size_t allocated_peak{0};
  std::size_t reserved{0};  // V: bytes held from the upstream, live or cached
  std::size_t reserved_peak{0};
  std::uint64_t allocations{0};
  std::uint64_t cross_stream_reuses{0};
  std::uint64_t event_waits{0};  // cudaStreamWaitEvent calls inserted
  std::uint64_t upstream_grows{0};
  std::uint64_t upstream_releases{0};
  std::uint64_t trims{0};
  std::uint64_t oom_retries{0};
  std::uint64_t failures{0};  // requests refused with out_of_memory
  std::uint64_t cap_rejections{0};
  double latency_p50_us{0.0};  // host time of allocate()
  double latency_p99_us{0.0};
  std::size_t largest_free_block{0};
  std::size_t total_free{0};    // cached, unused bytes: V - A
  std::size_t pending_free{0};  // cached bytes whose frees the device has not passed yet:
                                // not releasable without waiting on the device
  std::vector<class_statistics> classes;

  [[nodiscard]] double internal_fragmentation() const;  // 1 - R/A
  [[nodiscard]] double cached_unused_fraction() const;  // 1 - A/V
  [[nodiscard]] double external_fragmentation() const;  // 1 - largest free / total free
};

// A readable report, as price-batch --memory-report prints it.
void print_report(std::ostream& out, const pool_statistics& s);

}  // namespace mcprice
