#pragma once
// What the engine's GPU memory looks like: the scratch pool's statistics, the driver's view of
// the pool beneath it, and the persistent and market-data memory. Plain data: a consumer of the
// library compiles it without CUDA headers.
#include "mcprice/memory/allocation_profile.hpp"
#include "mcprice/memory/memory_statistics.hpp"

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

namespace mcprice {

struct memory_report {
  std::string allocator;                        // malloc | async-default | pool | bucketed
  std::optional<pool_statistics> scratch;       // bucketed pool only
  std::optional<resource_statistics> requests;  // malloc, async-default and pool: what was asked of them
  // pool and bucketed: the explicit pool beneath, or beneath the bucketed pool the mapped pages
  // (reserved: pages held, mapped or spare; used: pages mapped)
  std::optional<driver_pool_usage> driver;
  std::optional<mapped_page_usage> pages;  // bucketed, over pages it maps itself
  std::optional<gate_statistics> gate;          // admission under --pool-limit
  std::optional<graph_cache_statistics> graphs;  // --graphs on: the captured job graphs
  std::uint64_t job_retries{0};                 // jobs refused by the gate that came again
  int streams_busy{-1};                         // the engine's streams with work queued now (-1: unknown)
  // Every byte the engine's scratch holds from the CUDA driver, now and at its peak: the pages
  // beneath the bucketed pool (or, where the device cannot map pages, the driver pool's
  // reservation), the explicit pool's for pool, the default pool's for async-default (which
  // other users of that pool share), and the cudaMalloc'd bytes for malloc.
  std::size_t held_bytes{0};
  std::size_t held_peak{0};
  std::size_t market_bytes{0};
  std::size_t table_bytes{0};  // persistent tables beside the market (--rng sobol: the direction numbers)
  // engine_options::record_allocations: every scratch allocation so far, and each job's peak.
  std::optional<allocation_profile> profile;
  bool market_rdma_capable{false};  // market buffers passed the GPUDirect checks
  std::string market_note;          // why not, when they did not
};

void print_report(std::ostream& out, const memory_report& r);

}  // namespace mcprice
