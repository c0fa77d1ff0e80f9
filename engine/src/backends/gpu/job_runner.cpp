#include "backends/gpu/job_runner.hpp"

#include "backends/gpu/job_graphs.hpp"
#include "backends/gpu/nvtx_range.hpp"
#include "backends/gpu/submission_turn.hpp"
#include "mcprice/memory/cuda_error.hpp"
#include "mcprice/memory/event.hpp"
#include "mcprice/memory/memory_errors.hpp"
#include "mcprice/memory/persistent_arena.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>

namespace mcprice::detail {
namespace {

// Without a cap a job still stops at this many blocks (8 partials of 16 bytes each: 64 MiB).
constexpr std::int64_t max_blocks_per_job = std::int64_t{1} << 19;

std::size_t round256(std::size_t b) { return scratch_lease::charged(b); }

// The segment offsets' upload: n_seg + 1 offsets, then one more slot whose first word is the
// request's stop word (block_range::stop), zeroed by the same copy.
std::size_t offset_bytes_of(std::size_t n_seg) { return sizeof(std::int64_t) * (n_seg + 2); }

std::size_t cub_temp_bytes(std::size_t segments)
{
  std::size_t temp = 0;
  kernels::segmented_sum<moments>(nullptr, temp, nullptr, {nullptr, 0, static_cast<int>(segments)}, nullptr, nullptr);
  return temp;
}

// f(outcome) for the trade of each of a job's segments.
template <typename F>
void for_job_trades(const job_range& job, const segment_plan& plan, family_run& run, F&& f)
{
  for (std::size_t seg = job.first_segment; seg < job.end_segment; ++seg) f(run.outcomes[plan.segments[seg].trade]);
}

// Marks the trades of a job's segments as failed (a trade split over several jobs fails with
// the first of them that does).
void fail_job(const job_range& job, const segment_plan& plan, const std::string& why, family_run& run)
{
  for_job_trades(job, plan, run, [&](trade_outcome& o) {
    if (o.error.empty()) o.error = why;
  });
}

void cancel_job(const job_range& job, const segment_plan& plan, family_run& run)
{
  for_job_trades(job, plan, run, [](trade_outcome& o) { o.cancelled = true; });
}

}  // namespace

std::size_t greek_reduction::temp_bytes(std::size_t segments) const
{
  std::size_t temp = 0;
  sum(nullptr, temp, nullptr, {nullptr, 0, static_cast<int>(segments)}, nullptr, nullptr);
  return temp;
}

template <typename Sums>
const greek_reduction* greek_reduction_of()
{
  static constexpr greek_reduction reduction{
      sizeof(Sums),
      [](void* temp, std::size_t& temp_bytes, const void* partials, kernels::segment_offsets segments, void* out,
         cudaStream_t stream) {
        kernels::segmented_sum(temp, temp_bytes, static_cast<const Sums*>(partials), segments, static_cast<Sums*>(out),
                               stream);
      },
      [](const segment_plan& plan, const unsigned char* segment_sums, family_run& run) {
        std::vector<Sums> sums(plan.segments.size());
        std::memcpy(sums.data(), segment_sums, sizeof(Sums) * sums.size());
        auto const totals = combine_segments(plan, sums, run.outcomes.size());
        for (std::size_t i = 0; i < run.outcomes.size(); ++i) keep_greeks(run.outcomes[i], totals[i]);
      }};
  return &reduction;
}

template const greek_reduction* greek_reduction_of<greek_moments>();
template const greek_reduction* greek_reduction_of<path_greek_moments>();
template const greek_reduction* greek_reduction_of<basket_greek_moments>();

// A traced job's device events: recorded before its first kernel and after its last copy.
struct job_runner::job_trace {
  int job{0};
  event start{event::timing::enabled};
  event end{event::timing::enabled};
};

// A traced call's device clock: an event recorded on an idle stream, and the host second then.
struct job_runner::device_clock {
  event origin{event::timing::enabled};
  double host_seconds{0.0};
};

job_runner::job_runner(gpu_context& ctx, std::size_t job_cap, bool graphs, std::size_t graph_entries,
                       std::size_t graph_bytes)
    : ctx_(ctx), job_cap_(job_cap), stops_([&ctx] { MCPRICE_CUDA_TRY(cudaSetDevice(ctx.device())); })
{
  if (graphs) graphs_ = std::make_unique<job_graphs>(*this, ctx, graph_entries, graph_bytes);
}

job_runner::~job_runner() = default;

std::optional<graph_cache_statistics> job_runner::graph_statistics() const
{
  if (!graphs_) return std::nullopt;
  return graphs_->statistics();
}

void job_runner::trim_graphs() const
{
  if (graphs_) graphs_->trim();
}

family_run job_runner::run(const request_upload& u, const run_control& control, const job_kernels& kernels) const
{
  submission_turn turn(control);
  gpu_context::request_in_flight const in_flight(ctx_);
  MCPRICE_CUDA_TRY(cudaSetDevice(ctx_.device()));
  // Traced calls time each job on the device: they run eagerly.
  if (graphs_ && u.graph_family != nullptr && control.timeline == nullptr) {
    if (auto run = graphs_->run(u, control, kernels, turn)) return std::move(*run);
  }
  double const submitted_from = control.timeline != nullptr ? control.timeline->now() : 0.0;
  std::vector<job_trace> traces;
  std::shared_ptr<const device_clock> clock;
  request_state r;
  r.device.num_records = static_cast<int>(u.first_blocks.size());
  if (control.timeline != nullptr) {
    r.traces = &traces;
    clock = device_clock_of(*control.timeline);
  }
  family_run run = plan(u, control, r);
  if (r.split.jobs.empty()) return run;

  // Request-lifetime data (trade table, extra table, segment offsets; never the scratch pool)
  // and the pinned staging that also receives the segment sums, both cached across requests.
  request_sizes const sizes = sizes_of(u, r.plan.segments.size());
  auto device_data = ctx_.request_buffers().acquire(sizes.device);
  auto staging = ctx_.staging().acquire(sizes.staging);
  turn.take();
  upload(u, r, device_data.get(), staging.get());
  request_stop stop(*this, r, control);
  if (control.timeline != nullptr) {
    control.timeline->add({"plan+upload", control.chunk, 0, submitted_from, control.timeline->now(), false});
  }
  std::vector<stream_view> const streams = queue_jobs(r, control, kernels, run);
  turn.give_up();
  double const collect_from = control.timeline != nullptr ? control.timeline->now() : 0.0;
  collect(streams, control.spin_wait);
  if (u.tally_slots > 0 && !streams.empty()) {
    // Every job's atomics have landed once all its streams are collected: one copy back then.
    MCPRICE_CUDA_TRY(cudaMemcpyAsync(r.h_tally, r.d_tally, sizeof(unsigned long long) * u.tally_slots,
                                     cudaMemcpyDeviceToHost, streams.front().value()));
    collect({streams.front()}, control.spin_wait);
  }
  stop.end();
  ctx_.events().release(r.uploaded);
  if (clock) trace_request(*control.timeline, *clock, control.chunk, submitted_from, collect_from, r);
  keep_results(u, r, control, run);
  return run;
}

// After the request's work is collected: its sums per trade, its Greeks and outcome counters,
// or, where a stop reached its kernels, every trade cancelled.
void job_runner::keep_results(const request_upload& u, const request_state& r, const run_control& control,
                              family_run& run) const
{
  if (u.tally_slots > 0) run.tally.assign(r.h_tally, r.h_tally + u.tally_slots);
  if (r.stop_sent) {
    // Some blocks were left undone, and which is not known: no trade of the request is priced.
    for (trade_outcome& o : run.outcomes) o.cancelled = o.cancelled || o.error.empty();
  }
  // A failed job's segments hold nothing: its trades keep their error and no sums.
  std::size_t const n_seg = r.plan.segments.size();
  std::vector<moments> sums(r.h_sums, r.h_sums + n_seg);
  auto const totals = combine_segments(r.plan, sums, run.outcomes.size());
  for (std::size_t i = 0; i < run.outcomes.size(); ++i) {
    if (run.outcomes[i].error.empty() && !run.outcomes[i].cancelled) run.outcomes[i].sums = totals[i];
  }
  if (r.greeks != nullptr) r.greeks->keep(r.plan, r.h_greeks, run);
  if (control.progress) control.progress(u.total_samples, u.total_samples);
}

// The request's segments and jobs; trades whose smallest chunk exceeds what a job may hold fail
// here, with the reason.
family_run job_runner::plan(const request_upload& u, const run_control& control, request_state& r) const
{
  nvtx_range const phase("plan");
  r.plan = plan_segments(u.first_blocks, u.total_blocks);
  r.split = plan_jobs(r.plan, plan_cap(), job_size(u.total_blocks, control.max_jobs),
                      [&](std::int64_t blocks, std::size_t segs) { return job_need(u, blocks, segs); });
  family_run run;
  run.outcomes.resize(u.first_blocks.size());
  run.jobs = r.split.jobs.size();
  for (std::size_t t : r.split.trades_too_large) {
    run.outcomes[t].error =
        (plan_cap() == job_cap_ ? "--job-cap " + std::to_string(job_cap_) + " bytes is"
                                : "three quarters of the " + std::to_string(ctx_.scratch_budget()) +
                                      " bytes admitted under --pool-limit " + std::to_string(ctx_.pool_limit()) +
                                      " (what one job may take) is") +
        " smaller than the " + std::to_string(r.split.smallest_need) + " bytes one chunk of this trade needs";
  }
  return run;
}

// The request's jobs go round up to stream_count streams of the pool (other requests may share
// them; stream order and events keep every job's inputs and scratch safe). Returns the streams.
std::vector<stream_view> job_runner::queue_jobs(const request_state& r, const run_control& control,
                                                const job_kernels& kernels, family_run& run) const
{
  std::vector<stream_view> streams;
  std::size_t const k = std::min<std::size_t>(r.split.jobs.size(), static_cast<std::size_t>(ctx_.stream_count()));
  for (std::size_t i = 0; i < k; ++i) {
    streams.push_back(ctx_.next_stream());
    ctx_.events().wait(streams.back(), r.uploaded);
  }
  try {
    for (std::size_t j = 0; j < r.split.jobs.size(); ++j) {
      if (control.cancelled()) {
        // Jobs already queued finish; the rest never start.
        for (std::size_t rest = j; rest < r.split.jobs.size(); ++rest) cancel_job(r.split.jobs[rest], r.plan, run);
        break;
      }
      nvtx_range const phase("job " + std::to_string(j));
      // A job the scratch pool cannot serve fails alone: its trades report why, every other
      // job runs (its lease returns what it held in stream order, so nothing leaks).
      try {
        double const queued_from = control.timeline != nullptr ? control.timeline->now() : 0.0;
        run_admitted_job(r.split.jobs[j], r, streams[j % k], static_cast<int>(j), kernels);
        if (control.timeline != nullptr) {
          control.timeline->add({"queue job", control.chunk, j, queued_from, control.timeline->now(), false});
        }
      } catch (const out_of_memory& e) {
        fail_job(r.split.jobs[j], r.plan, "job " + std::to_string(j) + ": " + e.what(), run);
      } catch (const scratch_cap_exceeded& e) {
        fail_job(r.split.jobs[j], r.plan, "job " + std::to_string(j) + ": " + e.what(), run);
      }
    }
  } catch (...) {
    // Queued work may still read the request's buffers: let it finish before they go back
    // to the caches.
    for (stream_view s : streams) MCPRICE_CUDA_TRY_NOTHROW(cudaStreamSynchronize(s.value()));
    ctx_.events().release(r.uploaded);
    throw;
  }
  return streams;
}

// Enough jobs to keep two per stream in flight (at most max_jobs when given), but never below
// one segment or above the cap.
std::int64_t job_runner::job_size(std::int64_t total_blocks, std::size_t max_jobs) const
{
  std::int64_t share = (total_blocks + 2 * ctx_.stream_count() - 1) / (2 * ctx_.stream_count());
  if (max_jobs > 0) {
    auto const most = static_cast<std::int64_t>(max_jobs);
    share = std::max(share, (total_blocks + most - 1) / most);
  }
  return std::clamp(share, layout::blocks_per_segment, max_blocks_per_job);
}

// What one job may need, for the planner: --job-cap, and under --pool-limit three quarters of
// the limit, so that a job fits the pool alone after its allocations are rounded up to size
// classes (at most 19% each). A job that large waits until the others have drained.
std::size_t job_runner::plan_cap() const noexcept
{
  std::size_t const share = ctx_.scratch_budget() / 4 * 3;
  if (share == 0) return job_cap_;
  return job_cap_ == 0 ? share : std::min(job_cap_, share);
}

// A job's scratch: the reduction's (scratch_need) and the family's own.
std::size_t job_runner::job_need(const request_upload& u, std::int64_t blocks, std::size_t segments) const
{
  return scratch_need(blocks, segments, u.greeks) + round256(u.scratch_per_block * static_cast<std::size_t>(blocks)) +
         round256(u.scratch_per_job);
}

std::size_t job_runner::scratch_need(std::int64_t blocks, std::size_t segments, const greek_reduction* greeks) const
{
  auto const b = static_cast<std::size_t>(blocks);
  std::size_t need = round256(sizeof(moments) * layout::partials_per_block * b) + round256(cub_temp_bytes(segments));
  if (greeks != nullptr) {
    need += round256(greeks->bytes * layout::partials_per_block * b) + round256(greeks->temp_bytes(segments));
  }
  return need;
}

job_runner::request_sizes job_runner::sizes_of(const request_upload& u, std::size_t n_seg) const
{
  std::size_t const extra_bytes = u.table_bytes + u.tail_bytes;
  std::size_t const offset_bytes = offset_bytes_of(n_seg);
  std::size_t const tally_bytes = sizeof(unsigned long long) * u.tally_slots;
  std::size_t const greek_bytes = u.greeks != nullptr ? u.greeks->bytes * n_seg : 0;
  return {arena_view::footprint({u.record_bytes, extra_bytes, offset_bytes, tally_bytes}),
          arena_view::footprint(
              {u.record_bytes, extra_bytes, offset_bytes, sizeof(moments) * n_seg, greek_bytes, tally_bytes})};
}

void job_runner::upload(const request_upload& u, request_state& r, device_buffer& device_data,
                        pinned_buffer& staging) const
{
  nvtx_range const phase("upload");
  stage(u, r, device_data.data(), device_data.size(), staging.as<char>(), staging.size());
  stream_view const s = ctx_.upload_stream();
  if (r.traces != nullptr) {
    r.upload_trace = std::make_shared<job_trace>();
    r.upload_trace->start.record(s);
  }
  queue_upload(u, r, s);
  if (r.upload_trace) r.upload_trace->end.record(s);
  r.uploaded = ctx_.events().record(s);
}

// The request's host data into its staging, and where each part goes on the device into r.
// The layout depends on the sizes alone (sizes_of), so every request of one shape puts each
// part at the same addresses of the same buffers. The records, tables and offsets sit at the
// same offsets in the staging as on the device, so one copy sends them all: each copy is a
// node of a graph's replay and a call of an eager upload.
void job_runner::stage(const request_upload& u, request_state& r, void* device_data, std::size_t device_bytes,
                       char* host, std::size_t host_bytes) const
{
  std::size_t const n_seg = r.plan.segments.size();
  std::size_t const extra_bytes = u.table_bytes + u.tail_bytes;
  arena_view staged(host, host_bytes);
  arena_view arena(device_data, device_bytes);
  auto* const h_records = static_cast<char*>(staged.allocate(u.record_bytes));
  r.d_records = arena.allocate(u.record_bytes);
  std::memcpy(h_records, u.records, u.record_bytes);
  r.d_tables = nullptr;
  if (extra_bytes > 0) {
    auto* const h_tables = static_cast<char*>(staged.allocate(extra_bytes));
    r.d_tables = arena.allocate(extra_bytes);
    if (u.table_bytes > 0) std::memcpy(h_tables, u.tables, u.table_bytes);
    if (u.tail_bytes > 0) std::memcpy(h_tables + u.table_bytes, u.tail, u.tail_bytes);
  }
  r.device.records = r.d_records;
  r.device.tables = r.d_tables;
  auto* const h_offsets = staged.allocate_n<std::int64_t>(n_seg + 2);
  r.d_offsets = arena.allocate_n<std::int64_t>(n_seg + 2);
  for (std::size_t i = 0; i < n_seg; ++i) h_offsets[i] = r.plan.segments[i].first_block;
  h_offsets[n_seg] = r.plan.total_blocks;
  h_offsets[n_seg + 1] = 0;
  r.h_upload = host;
  r.upload_bytes = staged.used();
  r.h_stop = reinterpret_cast<unsigned int*>(h_offsets + n_seg + 1);
  r.d_stop = reinterpret_cast<unsigned int*>(r.d_offsets + n_seg + 1);

  r.h_sums = staged.allocate_n<moments>(n_seg);
  if (u.greeks != nullptr) {
    r.greeks = u.greeks;
    r.h_greeks = static_cast<unsigned char*>(staged.allocate(u.greeks->bytes * n_seg));
  }
  r.d_tally = nullptr;
  if (u.tally_slots > 0) {
    r.h_tally = staged.allocate_n<unsigned long long>(u.tally_slots);
    r.d_tally = arena.allocate_n<unsigned long long>(u.tally_slots);
    u.bind_tally(host, r.d_tally);
  }
}

// The staged request's copy to the device on s (records, tables, offsets and the zeroed stop
// word in one), the counters zeroed.
void job_runner::queue_upload(const request_upload& u, const request_state& r, stream_view s) const
{
  if (r.d_tally != nullptr) {
    MCPRICE_CUDA_TRY(cudaMemsetAsync(r.d_tally, 0, sizeof(unsigned long long) * u.tally_slots, s.value()));
  }
  MCPRICE_CUDA_TRY(cudaMemcpyAsync(r.d_records, r.h_upload, r.upload_bytes, cudaMemcpyHostToDevice, s.value()));
}

// Once the caller has cancelled, asks the request's kernels to stop, as soon as its upload (which
// zeroes the stop word) has passed on the device; until then its kernels have not started, and
// the next poll asks again. The copy then waits for nothing on the device: a wait there, on the
// shared stop stream, held every request's stop behind the longest job. Runs on the stop watch's
// thread.
void job_runner::stop_if_cancelled(request_state& r, const run_control& control) const
{
  if (r.stop_sent || !control.cancelled() || !ctx_.events().passed(r.uploaded)) return;
  if (control.timeline != nullptr) r.stop_sent_at = control.timeline->now();
  send_stop(r);
}

job_runner::request_stop::request_stop(const job_runner& runner, request_state& r, const run_control& control)
    : runner_(runner),
      r_(r),
      watched_(control.cancel == nullptr ? stop_watch::entry{} : runner.stops_.watch([&runner, &r, &control] {
        runner.stop_if_cancelled(r, control);
      }))
{
}

job_runner::request_stop::~request_stop()
{
  if (ended_) return;
  (void)watched_.reset();  // an error on the way out is the one already under way
  if (r_.stop_sent) MCPRICE_CUDA_TRY_NOTHROW(cudaStreamSynchronize(runner_.ctx_.stop_stream().value()));
}

void job_runner::request_stop::end()
{
  ended_ = true;
  if (std::exception_ptr const failure = watched_.reset()) std::rethrow_exception(failure);
  if (r_.stop_sent) MCPRICE_CUDA_TRY(cudaStreamSynchronize(runner_.ctx_.stop_stream().value()));
}

// The request's stop word set through the context's stop stream (gpu_context::send_stop).
void job_runner::send_stop(request_state& r) const
{
  if (r.traces != nullptr) {
    r.stop_trace = std::make_shared<job_trace>();
    r.stop_trace->start.record(ctx_.stop_stream());
  }
  ctx_.send_stop(r.d_stop, r.h_stop);
  if (r.stop_trace) r.stop_trace->end.record(ctx_.stop_stream());
  r.stop_sent = true;
}

// Under --pool-limit a job holding scratch may be refused more (scratch_busy): it has given
// everything back, and comes again admitted for its whole need at once, so it waits holding
// nothing. Its kernels, if some were queued, wrote only its own scratch (freed behind them in
// stream order) and the same sums it writes again: the results keep their bits.
void job_runner::run_admitted_job(const job_range& job, const request_state& r, stream_view s, int job_no,
                                  const job_kernels& kernels) const
{
  std::size_t need = 0;
  bool alone = false;
  for (;;) {
    try {
      run_job(job, r, s, job_no, kernels, {&ctx_.scratch(), ctx_.gate(), ctx_.recorder(), need, alone});
      return;
    } catch (const scratch_busy& e) {
      need = e.needed();
      alone = alone || e.alone();
      ctx_.note_job_retry();
    }
  }
}

// One job on stream s: scratch from a capped lease, the family's kernels over the job's
// blocks, the fixed-order segment sums written into pinned memory; the lease's frees are
// queued behind all of it. Nothing here waits on the host.
void job_runner::run_job(const job_range& job, const request_state& r, stream_view s, int job_no,
                         const job_kernels& kernels, const scratch_source& from) const
{
  kernels::block_range const blocks{job.first_block(r.plan), job.end_block(r.plan), r.d_stop};
  auto const n_blocks = static_cast<std::size_t>(blocks.size());
  auto const segs = static_cast<int>(job.end_segment - job.first_segment);
  kernels::segment_offsets const segments{r.d_offsets + job.first_segment, blocks.begin, segs};
  scratch_lease lease(
      *from.pool, s, job_cap_, "job " + std::to_string(job_no), [this] { ctx_.note_cap_rejection(); }, from.gate);
  lease.record_into(from.recorder);
  lease.admit(from.admit, from.alone);
  auto* const d_blocks = lease.allocate_n<moments>(n_blocks * layout::partials_per_block);
  std::size_t temp_bytes = cub_temp_bytes(static_cast<std::size_t>(segs));
  void* const temp = lease.allocate(temp_bytes);
  // All of the job's scratch is taken before its first kernel is queued: a job refused scratch
  // is retried whole, and kernels already queued would count autocallables' outcomes twice.
  void* d_greek_blocks = nullptr;
  void* greek_temp = nullptr;
  std::size_t greek_temp_bytes = 0;
  if (r.greeks != nullptr) {
    d_greek_blocks = lease.allocate(r.greeks->bytes * n_blocks * layout::partials_per_block);
    greek_temp_bytes = r.greeks->temp_bytes(static_cast<std::size_t>(segs));
    greek_temp = lease.allocate(greek_temp_bytes);
  }
  std::optional<job_trace> trace;  // kept only once its job is wholly queued (it may yet be retried)
  if (r.traces != nullptr) {
    trace.emplace();
    trace->job = job_no;
    trace->start.record(s);
  }
  kernels(r.device, blocks, {d_blocks, d_greek_blocks}, lease, s);
  // The segment sums are written straight into the request's pinned staging, which the device
  // reaches at the same address (unified addressing): a few bytes a segment, and no copy back,
  // which was a node of every job graph and a call of every eager job.
  nvtx_range const phase("reduce");
  kernels::segmented_sum(temp, temp_bytes, d_blocks, segments, r.h_sums + job.first_segment, s.value());
  if (d_greek_blocks != nullptr) {
    r.greeks->sum(greek_temp, greek_temp_bytes, d_greek_blocks, segments,
                  r.h_greeks + r.greeks->bytes * job.first_segment, s.value());
  }
  if (trace) {
    trace->end.record(s);
    r.traces->push_back(std::move(*trace));
  }
}

// The traced call's device clock, recorded by its first request on an idle stream of its own
// (before the call's GPU work, so the event runs as soon as it is recorded).
std::shared_ptr<const job_runner::device_clock> job_runner::device_clock_of(run_timeline& timeline) const
{
  return std::static_pointer_cast<const device_clock>(timeline.reference([&] {
    std::call_once(trace_stream_once_, [this] { trace_stream_.emplace(); });
    auto c = std::make_shared<device_clock>();
    c->origin.record(trace_stream_->view());
    c->host_seconds = timeline.now();
    return std::shared_ptr<const void>(std::move(c));
  }));
}

// A traced request's spans: its submission and collection on the host, and each job's span on
// the device (its events are complete once the request is collected). A stopped request adds
// "stop sent" (host: from the send to the collection's end) and "stop copy" (device: from the
// copy's turn on the stop stream to its landing); "upload" is the request's copies on the device.
void job_runner::trace_request(run_timeline& timeline, const device_clock& clock, std::size_t chunk,
                               double submitted_from, double collect_from, const request_state& r) const
{
  double const collected = timeline.now();
  timeline.add({"submit", chunk, 0, submitted_from, collect_from, false});
  timeline.add({"collect", chunk, 0, collect_from, collected, false});
  clock.origin.synchronize();
  auto device_seconds = [&](const event& e) { return clock.host_seconds + 1e-3 * event::elapsed_ms(clock.origin, e); };
  for (const job_trace& t : *r.traces) {
    timeline.add({"job", chunk, static_cast<std::size_t>(t.job), device_seconds(t.start), device_seconds(t.end), true});
  }
  if (r.upload_trace) {
    timeline.add(
        {"upload", chunk, 0, device_seconds(r.upload_trace->start), device_seconds(r.upload_trace->end), true});
  }
  if (r.stop_trace) {
    r.stop_trace->end.synchronize();
    timeline.add({"stop sent", chunk, 0, r.stop_sent_at, collected, false});
    timeline.add({"stop copy", chunk, 0, device_seconds(r.stop_trace->start), device_seconds(r.stop_trace->end), true});
  }
}

// The request's one host wait: an event after the last copy of each stream it used, polled.
// A pipelined call has a collector per chunk in flight, and a dozen busy collectors (spinning,
// as the runtime's own wait does with one context and many cores, or yielding, much the same
// on Linux) starved the threads preparing chunks and making results for milliseconds: all but
// the last chunks' collectors sleep 50 us between polls (spin: run_control::spin_wait). The
// request's stop is the stop watch's to send (request_stop), not this thread's.
void job_runner::collect(const std::vector<stream_view>& used, bool spin) const
{
  nvtx_range const phase("collect");
  std::vector<order_token> done;
  for (stream_view s : used) done.push_back(ctx_.events().record(s));
  for (order_token t : done) {
    while (!ctx_.events().passed(t)) {
      if (!spin) std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
    ctx_.events().release(t);
  }
}

}  // namespace mcprice::detail
