#pragma once
// Requests replayed as CUDA graphs (engine_options::graphs, docs/graphs.md). A request's device
// work (upload, each job's kernels and fixed-order segment sums into the staging) is captured once
// per shape into a graph that owns its pinned staging, its device buffer and, through allocation
// nodes, its jobs' scratch. Each request of that shape then stages its host data at the same
// addresses and launches the graph: one launch where the eager path queues a dozen operations,
// takes scratch from the pool and records events. The graphs are cached under a count and a byte
// budget, least recently used out; an instance serves one request at a time, and a shape in demand
// on several threads gets several instances.
#include "backends/gpu/job_runner.hpp"
#include "backends/gpu/submission_turn.hpp"
#include "mcprice/memory/memory_statistics.hpp"
#include "runtime/lent_lru.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace mcprice::detail {

// What fixes a request's graph: its family and route, and every size, block and launch
// parameter that the graph's operations bake in.
struct job_graph_key {
  const void* family{nullptr};
  std::vector<std::int64_t> words;
  bool operator==(const job_graph_key& o) const noexcept { return family == o.family && words == o.words; }
};

struct job_graph_key_hash {
  std::size_t operator()(const job_graph_key& k) const noexcept;
};

// The key of a request (its plan made with control's max_jobs).
job_graph_key graph_key_of(const request_upload& u, const run_control& control);

class job_graphs {
 public:
  job_graphs(const job_runner& runner, gpu_context& ctx, std::size_t max_entries, std::size_t max_bytes);
  ~job_graphs();
  job_graphs(const job_graphs&) = delete;
  job_graphs& operator=(const job_graphs&) = delete;

  // The request on a graph of its shape (captured if no idle one exists and the shape came
  // before); none when it must run eagerly: the shape's first request, a trade too large for a
  // job, no room in the cache, or a shape that failed to capture before. Takes the submission
  // turn before its first GPU operation.
  std::optional<family_run> run(const request_upload& u, const run_control& control, const job_kernels& kernels,
                                submission_turn& turn);
  [[nodiscard]] graph_cache_statistics statistics() const;
  void trim();

 private:
  struct entry;
  using entry_ptr = std::unique_ptr<entry>;
  using request_state = job_runner::request_state;

  entry_ptr capture(const job_graph_key& key, const request_upload& u, request_state& r, const job_kernels& kernels);
  void record(const request_upload& u, const request_state& r, const job_kernels& kernels, entry& e) const;
  void drop(std::vector<entry_ptr>& evicted) noexcept;
  bool seen_before(const job_graph_key& key);

  const job_runner& runner_;
  gpu_context& ctx_;
  mutable std::mutex mutex_;
  lent_lru<job_graph_key, entry_ptr, job_graph_key_hash> cache_;
  std::unordered_set<job_graph_key, job_graph_key_hash> failed_;
  std::unordered_map<job_graph_key, std::uint64_t, job_graph_key_hash> seen_;  // requests of each shape
  std::uint64_t replays_{0};
  std::uint64_t captures_{0};
  std::uint64_t failures_{0};
  std::atomic<std::size_t> device_bytes_{0};  // the entries' device buffers and scratch
  std::size_t device_peak_{0};
};

}  // namespace mcprice::detail
