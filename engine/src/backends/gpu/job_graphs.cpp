#include "backends/gpu/job_graphs.hpp"

#include "backends/gpu/nvtx_range.hpp"
#include "mcprice/memory/arena_scratch_resource.hpp"
#include "mcprice/memory/cuda_error.hpp"
#include "mcprice/memory/graph.hpp"

#include <algorithm>
#include <exception>
#include <functional>
#include <utility>

namespace mcprice::detail {

std::size_t job_graph_key_hash::operator()(const job_graph_key& k) const noexcept
{
  std::size_t h = std::hash<const void*>{}(k.family);
  for (std::int64_t w : k.words) h ^= std::hash<std::int64_t>{}(w) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h;
}

job_graph_key graph_key_of(const request_upload& u, const run_control& control)
{
  job_graph_key k{u.graph_family, {}};
  auto& w = k.words;
  auto add = [&w](auto v) { w.push_back(static_cast<std::int64_t>(v)); };
  add(u.record_bytes);
  add(u.table_bytes);
  add(u.tail_bytes);
  add(u.tally_slots);
  add(u.scratch_per_block);
  add(u.scratch_per_job);
  add(reinterpret_cast<std::intptr_t>(u.greeks));
  add(u.total_blocks);
  add(control.max_jobs);
  add(u.first_blocks.size());
  w.insert(w.end(), u.first_blocks.begin(), u.first_blocks.end());
  add(u.graph_shape.size());
  w.insert(w.end(), u.graph_shape.begin(), u.graph_shape.end());
  return k;
}

// One instantiated graph and the buffers its operations are bound to. Under --pool-limit its
// scratch is admitted from the gate for its whole life.
struct job_graphs::entry {
  pinned_buffer staging;
  device_buffer device;
  device_buffer scratch;  // every job's, one job at a time
  graph_exec exec;
  std::size_t bytes{0};
  scratch_gate* gate{nullptr};
  std::size_t admitted{0};

  entry() = default;
  entry(const entry&) = delete;
  entry& operator=(const entry&) = delete;
  ~entry()
  {
    if (gate != nullptr) gate->release_held(admitted);
  }
};

job_graphs::job_graphs(const job_runner& runner, gpu_context& ctx, std::size_t max_entries, std::size_t max_bytes)
    : runner_(runner), ctx_(ctx), cache_(max_entries, max_bytes)
{
}

job_graphs::~job_graphs() = default;

std::optional<family_run> job_graphs::run(const request_upload& u, const run_control& control,
                                          const job_kernels& kernels, submission_turn& turn)
{
  // The shape alone decides whether a graph serves the request, so a request that runs eagerly
  // (a shape's first, or one that failed to capture) is planned only once, by the eager path.
  job_graph_key key = graph_key_of(u, control);
  entry_ptr e;
  {
    std::lock_guard<std::mutex> const lock(mutex_);
    if (failed_.count(key) != 0) return std::nullopt;
    if (auto idle = cache_.take(key)) {
      e = std::move(*idle);
      ++replays_;
    } else if (!seen_before(key)) {
      return std::nullopt;
    }
  }
  request_state r;
  r.device.num_records = static_cast<int>(u.first_blocks.size());
  family_run run = runner_.plan(u, control, r);
  // Trades too large for a job fail with the eager path's messages (no graph of such a shape
  // exists: none is ever captured for it).
  if (r.split.jobs.empty() || !r.split.trades_too_large.empty()) return std::nullopt;
  if (!e) e = capture(key, u, r, kernels);
  if (!e) return std::nullopt;
  std::size_t const bytes = e->bytes;
  if (control.cancelled()) {
    // Stopped before it started: the eager path marks every job cancelled and queues nothing.
    std::lock_guard<std::mutex> const lock(mutex_);
    cache_.give_back(std::move(key), std::move(e), bytes);
    return std::nullopt;
  }

  try {
    nvtx_range const phase("graph");
    runner_.stage(u, r, e->device.data(), e->device.size(), e->staging.as<char>(), e->staging.size());
    turn.take();
    stream_view const s = ctx_.next_stream();
    // The graph's upload sends the stop word from the staging, zeroed by stage(). A stop may be
    // sent once this record has passed, before that copy has run; its sender sets the staged
    // word first, so either copy that lands last carries the stop (stop_if_cancelled). A call
    // that cannot be stopped records nothing: one driver call less a replay.
    if (control.cancel != nullptr) r.uploaded = ctx_.events().record(s);
    job_runner::request_stop stop(runner_, r, control);
    e->exec.launch(s);
    turn.give_up();
    runner_.collect({s}, control.spin_wait);
    stop.end();
    if (r.uploaded != 0) ctx_.events().release(r.uploaded);
    runner_.keep_results(u, r, control, run);
  } catch (...) {
    // The instance may be broken with its stream: it is not kept.
    std::lock_guard<std::mutex> const lock(mutex_);
    cache_.forget(bytes);
    device_bytes_ -= e->device.size() + e->scratch.size();
    throw;
  }
  std::lock_guard<std::mutex> const lock(mutex_);
  cache_.give_back(std::move(key), std::move(e), bytes);
  return run;
}

// A shape is captured the second time it comes: a capture and instantiation cost more host
// time than one eager request, and a book's one-off shapes (a pipelined call's chunks) would
// otherwise fill the cache and push out the shapes that repeat. Called under the lock.
bool job_graphs::seen_before(const job_graph_key& key)
{
  // The shapes remembered are only counts; past this many they are forgotten all at once.
  constexpr std::size_t most_remembered = 4096;
  if (seen_.size() >= most_remembered && seen_.count(key) == 0) seen_.clear();
  return seen_[key]++ > 0;
}

// A new instance for the request's shape, lent to the caller; none if the cache has no room
// (or, under --pool-limit, the gate no room for its scratch) or the capture fails.
job_graphs::entry_ptr job_graphs::capture(const job_graph_key& key, const request_upload& u, request_state& r,
                                          const job_kernels& kernels)
{
  job_runner::request_sizes const sizes = runner_.sizes_of(u, r.plan.segments.size());
  // The jobs run one after another in the graph, each reusing the scratch of the one before.
  std::size_t scratch = 0;
  for (const job_range& job : r.split.jobs) {
    scratch = std::max(scratch, runner_.job_need(u, job.end_block(r.plan) - job.first_block(r.plan),
                                                 job.end_segment - job.first_segment));
  }
  auto e = std::make_unique<entry>();
  e->bytes = sizes.device + sizes.staging + scratch;
  if (scratch_gate* const gate = ctx_.gate(); gate != nullptr) {
    if (!gate->try_hold(scratch)) return nullptr;
    e->gate = gate;
    e->admitted = scratch;
  }
  std::vector<entry_ptr> evicted;
  {
    std::lock_guard<std::mutex> const lock(mutex_);
    if (!cache_.make_room(e->bytes, evicted)) return nullptr;
  }
  drop(evicted);
  try {
    nvtx_range const phase("graph capture");
    e->staging = pinned_buffer(sizes.staging);
    e->device = device_buffer(sizes.device);
    e->scratch = device_buffer(scratch);
    record(u, r, kernels, *e);
  } catch (const std::exception&) {
    // A shape whose work cannot be captured (or instantiated) runs eagerly from now on.
    std::lock_guard<std::mutex> const lock(mutex_);
    cache_.forget(e->bytes);
    failed_.insert(key);
    ++failures_;
    return nullptr;
  }
  std::lock_guard<std::mutex> const lock(mutex_);
  ++captures_;
  device_bytes_ += e->device.size() + e->scratch.size();
  device_peak_ = std::max(device_peak_, device_bytes_.load());
  return e;
}

// The request's device work, staged into e's buffers, captured on a stream of its own (no
// other thread queues there) and instantiated. Each job's scratch comes from e's scratch buffer,
// at addresses fixed for the graph's life; its cap holds as on the eager path. Allocation nodes
// (cudaMallocAsync while capturing) were measured first, and were slower: docs/graphs.md.
void job_graphs::record(const request_upload& u, const request_state& r, const job_kernels& kernels, entry& e) const
{
  request_state staged = r;
  runner_.stage(u, staged, e.device.data(), e.device.size(), e.staging.as<char>(), e.staging.size());
  stream const capturing_on;
  arena_scratch_resource scratch(e.scratch.data(), e.scratch.size());
  graph g;
  {
    stream_capture capture(capturing_on.view());
    runner_.queue_upload(u, staged, capturing_on.view());
    for (std::size_t j = 0; j < staged.split.jobs.size(); ++j) {
      scratch.reset();
      runner_.run_job(staged.split.jobs[j], staged, capturing_on.view(), static_cast<int>(j), kernels,
                      {&scratch, nullptr, nullptr, 0});
    }
    if (u.tally_slots > 0) {
      MCPRICE_CUDA_TRY(cudaMemcpyAsync(staged.h_tally, staged.d_tally, sizeof(unsigned long long) * u.tally_slots,
                                       cudaMemcpyDeviceToHost, capturing_on.value()));
    }
    g = capture.finish();
  }
  e.exec = graph_exec(g);
}

// Evicted entries are destroyed here, outside the lock: their graphs, buffers and admission.
void job_graphs::drop(std::vector<entry_ptr>& evicted) noexcept
{
  for (const entry_ptr& e : evicted) device_bytes_ -= e->device.size() + e->scratch.size();
  evicted.clear();
}

graph_cache_statistics job_graphs::statistics() const
{
  graph_cache_statistics g;
  {
    std::lock_guard<std::mutex> const lock(mutex_);
    auto const& c = cache_.statistics();
    g.entries = c.entries;
    g.in_use = c.lent;
    g.bytes = c.bytes;
    g.peak_bytes = c.peak_bytes;
    g.max_entries = cache_.max_entries();
    g.max_bytes = cache_.max_bytes();
    g.evictions = c.evictions;
    g.refusals = c.refusals;
    g.replays = replays_;
    g.captures = captures_;
    g.failures = failures_;
    g.device_bytes = device_bytes_;
    g.device_peak = device_peak_;
  }
  graph_memory_usage const pool = query_graph_memory(ctx_.device());
  g.pool_reserved = pool.reserved;
  g.pool_reserved_high = pool.reserved_high;
  g.pool_used = pool.used;
  g.pool_used_high = pool.used_high;
  return g;
}

void job_graphs::trim()
{
  std::vector<entry_ptr> evicted;
  {
    std::lock_guard<std::mutex> const lock(mutex_);
    evicted = cache_.evict_idle();
  }
  drop(evicted);
  // The graphs hold no allocation nodes; what the runtime keeps for graphs goes back all the same.
  trim_graph_memory(ctx_.device());
}

}  // namespace mcprice::detail
