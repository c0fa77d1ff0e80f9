#pragma once
// What the memory layer reports, as plain data (no CUDA types, so the engine's public memory
// report can carry it): the bucketed scratch pool's sizes current and peak, per-class traffic,
// cross-stream reuse, upstream traffic, failures, allocation latency and fragmentation; the
// driver's view of an explicit pool; what passed through a statistics adaptor; and admission
// under a byte budget.
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
  // N: live bytes had every request a block of its own class (A without the larger blocks taken
  // for smaller requests): what the jobs needed of the pool; the headroom is a share of its peak.
  std::size_t needed{0};
  std::size_t needed_peak{0};
  // D: bytes the device may still be using: R, plus what the allocations of cached blocks asked
  // for where their frees are not yet known passed. A stream-ordered free ends a request on the
  // host at once, and its kernels' use of the bytes later: D is the need on the device's
  // timeline. It is an upper bound (a free is known passed at the next poll, with the upkeep
  // thread within a round) and below V always.
  std::size_t device_requested{0};
  std::size_t device_requested_peak{0};
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
  double latency_p50_us{0.0};  // host time of allocate(), every call since construction
  double latency_p99_us{0.0};
  // Where the tail comes from: allocations that found no block on the hot path (the slow path
  // polls other streams' frees, takes a larger block, ties streams or grows), their host time,
  // and the upstream's time for the growths among them.
  std::uint64_t slow_paths{0};
  std::uint64_t larger_reuses{0};  // allocations served by a block beyond reuse_reach classes larger
  std::uint64_t grown_ahead{0};    // blocks the upkeep grew for classes that had just missed
  double slow_latency_p50_us{0.0};
  double slow_latency_p99_us{0.0};
  double growth_latency_p50_us{0.0};
  double growth_latency_p99_us{0.0};
  std::size_t largest_free_block{0};
  std::size_t total_free{0};    // cached, unused bytes: V - A
  std::size_t pending_free{0};  // cached bytes whose frees the device has not passed yet:
                                // not releasable without waiting on the device
  std::vector<class_statistics> classes;

  [[nodiscard]] double internal_fragmentation() const;  // 1 - R/A
  [[nodiscard]] double cached_unused_fraction() const;  // 1 - A/V
  [[nodiscard]] double external_fragmentation() const;  // 1 - largest free / total free
};

// The driver's view of an explicit pool (cudaMemPoolAttr*).
struct driver_pool_usage {
  std::size_t reserved_current{0};  // cudaMemPoolAttrReservedMemCurrent
  std::size_t reserved_high{0};
  std::size_t used_current{0};
  std::size_t used_high{0};
};

// The pages the engine maps itself beneath the bucketed pool (mapped_page_resource).
struct mapped_page_usage {
  std::size_t page_size{0};
  std::size_t held{0};  // every page created and not yet released: mapped, pending or spare
  std::size_t held_peak{0};
  std::size_t mapped{0};  // pages mapped: behind live blocks, frees not yet passed, or idle
  std::size_t idle{0};    // mapped pages no block touches, kept for the next block placed there
  std::size_t mapped_peak{0};
  std::size_t spare{0};          // unmapped pages kept for the next mapping
  std::size_t pending_frees{0};  // blocks freed on a stream the device has not yet passed
  std::size_t live_bytes{0};     // bytes of the live blocks themselves
  std::size_t free_extents{0};   // gaps between blocks in the range of addresses
  std::uint64_t pages_created{0};
  std::uint64_t pages_released{0};
  std::uint64_t maps{0};
  std::uint64_t pending_waits{0};  // at the limit: the host waited for a pending free's mark
};

// Bytes asked of a resource through statistics_resource.
struct resource_statistics {
  std::size_t requested{0};       // bytes asked for by live allocations
  std::size_t requested_peak{0};  // since construction, or the last reset_peak()
  std::uint64_t allocations{0};
  std::uint64_t failures{0};   // allocate() calls that threw (out of memory)
  double latency_p50_us{0.0};  // host time of allocate()
  double latency_p99_us{0.0};
};

// Admission to scratch under --pool-limit (scratch_gate).
struct gate_statistics {
  std::size_t budget{0};  // 0 = no limit
  std::size_t in_use{0};  // bytes admitted now
  std::size_t peak{0};
  std::uint64_t waits{0};     // acquisitions that had to wait
  double wait_s{0.0};         // their total time waiting
  std::uint64_t refusals{0};  // try_acquire calls refused (each a job's retry)
  std::uint64_t alone_waits{0};  // jobs the pool could not serve beside others, come again alone
};

// The GPU backend's captured job graphs (engine_options::graphs): the cache's entries and the
// bytes they hold (pinned staging, device buffers and scratch), under its limits, and the
// device's graph memory pool (what the runtime holds for graphs' allocation nodes; ours have
// none, so it stays empty unless another user of the device has some).
struct graph_cache_statistics {
  std::size_t entries{0};  // instantiated graphs, idle and in use
  std::size_t in_use{0};
  std::size_t bytes{0};  // what the entries hold or reserve, idle and in use
  std::size_t device_bytes{0};  // of which device memory (cudaMalloc'd buffers and scratch)
  std::size_t device_peak{0};
  std::size_t peak_bytes{0};
  std::size_t max_entries{0};
  std::size_t max_bytes{0};
  std::uint64_t replays{0};      // requests served by a cached graph
  std::uint64_t captures{0};     // graphs captured and instantiated
  std::uint64_t evictions{0};    // least recently used out, or trimmed
  std::uint64_t refusals{0};     // requests run eagerly: no room under the limits
  std::uint64_t failures{0};     // captures that failed (their shape then runs eagerly)
  std::size_t pool_reserved{0};  // the graph memory pool's bytes held from the driver
  std::size_t pool_reserved_high{0};
  std::size_t pool_used{0};
  std::size_t pool_used_high{0};
};

// A readable report, as price-batch --memory-report prints it.
void print_report(std::ostream& out, const pool_statistics& s);

}  // namespace mcprice
