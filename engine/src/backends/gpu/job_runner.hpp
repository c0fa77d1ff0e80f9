#pragma once
// The GPU backend's one executor: a family's request planned into segments and jobs that fit the
// scratch cap, its records and tables uploaded once, each job's kernels queued on a stream of
// the pool with scratch from a capped lease, the fixed-order segment sums copied back, and one
// host wait for the whole request. It knows nothing of any family: the family's kernels come as
// a function (gpu_backend.cpp makes it from the family's traits).
#include "backends/family_run.hpp"
#include "backends/gpu/gpu_context.hpp"
#include "backends/gpu/stop_watch.hpp"
#include "mcprice/kernels/launch/family_ref.hpp"
#include "mcprice/kernels/launch/reduction.hpp"
#include "mcprice/memory/memory_statistics.hpp"
#include "mcprice/memory/scratch_lease.hpp"
#include "mcprice/memory/stream.hpp"
#include "planning/work_plan.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

namespace mcprice::detail {

// A request's records and tables where its jobs' kernels read them.
struct request_on_device {
  const void* records{nullptr};
  const void* tables{nullptr};
  int num_records{0};
};

// Where a job's kernels write: each canonical block's partials of the price, and with Greeks of
// the Greek sums (greek_partials, of the family's greek_sums type).
struct job_outputs {
  moments* partials{nullptr};
  void* greek_partials{nullptr};
};

// The kernels of one job: the request, the job's blocks, its outputs, its lease (for scratch of
// the family's own, such as the two-phase route's) and its stream.
using job_kernels = std::function<void(const request_on_device&, kernels::block_range, const job_outputs&,
                                       scratch_lease&, stream_view)>;

// How a family's Greek sums are summed per segment on the device, and kept per trade.
struct greek_reduction {
  std::size_t bytes{0};  // one partial, or one segment's sum
  void (*sum)(void* temp, std::size_t& temp_bytes, const void* partials, kernels::segment_offsets segments, void* out,
              cudaStream_t stream){nullptr};
  void (*keep)(const segment_plan& plan, const unsigned char* segment_sums, family_run& run){nullptr};

  [[nodiscard]] std::size_t temp_bytes(std::size_t segments) const;
};

// The reduction of a family's Greek sums type.
template <typename Sums>
const greek_reduction* greek_reduction_of();

// What a request uploads, and what its jobs need beside their blocks' partials.
struct request_upload {
  const void* records{nullptr};
  std::size_t record_bytes{0};
  std::vector<std::int64_t> first_blocks;  // per record: its first canonical block
  std::int64_t total_blocks{0};
  std::int64_t total_samples{0};  // for the progress report
  const void* tables{nullptr};    // the family's tables, packed
  std::size_t table_bytes{0};
  // Bytes that follow the tables in the same upload (the early-exercise coefficients, calibrated
  // after the rest of the tables were packed).
  const void* tail{nullptr};
  std::size_t tail_bytes{0};
  std::size_t scratch_per_block{0};  // the family's own scratch (two-phase route)
  std::size_t scratch_per_job{0};
  const greek_reduction* greeks{nullptr};  // requests with Greeks
  // Autocallables' outcome counters (backends/outcome_tallies.hpp): how many, zeroed on the device
  // with the upload, and how the host copy of the records is pointed at them before it goes up.
  std::size_t tally_slots{0};
  std::function<void(void* records, unsigned long long* counters)> bind_tally;
  // Graphs (engine_options::graphs): the family and route whose kernels these are (one address
  // each), null where the request must run eagerly; and every launch parameter the family
  // derives on the host from its records and tables beyond the sizes above (the tables'
  // offsets in their upload, the two-phase layout). Requests alike in all of it, and in their
  // blocks, replay one captured graph.
  const void* graph_family{nullptr};
  std::vector<std::int64_t> graph_shape;
};

// Where a job's scratch comes from: the engine's pool under its gate (eager jobs, admitted for
// `admit` bytes up front after a refusal), or a capture's allocation nodes.
struct scratch_source {
  memory_resource* pool{nullptr};
  scratch_gate* gate{nullptr};
  allocation_recorder* recorder{nullptr};
  std::size_t admit{0};
  bool alone{false};  // admitted with no other job (the pool could not serve it beside them)
};

class job_graphs;

class job_runner {
 public:
  // graphs: engine_options::graphs resolved (on or off), with the cache's limits.
  job_runner(gpu_context& ctx, std::size_t job_cap, bool graphs, std::size_t graph_entries, std::size_t graph_bytes);
  ~job_runner();
  job_runner(const job_runner&) = delete;
  job_runner& operator=(const job_runner&) = delete;

  family_run run(const request_upload& upload, const run_control& control, const job_kernels& kernels) const;
  // The captured graphs' cache, where graphs are on.
  [[nodiscard]] std::optional<graph_cache_statistics> graph_statistics() const;
  // Every idle graph destroyed, and the graph memory pool's unused memory given back.
  void trim_graphs() const;

 private:
  friend class job_graphs;
  struct job_trace;
  // A request in flight: its plan and its request-lifetime buffers on both sides.
  struct request_state {
    segment_plan plan;
    job_split split;
    request_on_device device;
    void* d_records{nullptr};
    void* d_tables{nullptr};
    std::int64_t* d_offsets{nullptr};
    unsigned int* d_stop{nullptr};  // the stop word, after the offsets
    char* h_upload{nullptr};        // the staged records, tables and offsets, laid out as on the device
    std::size_t upload_bytes{0};    // their bytes, up to the stop word's end
    unsigned int* h_stop{nullptr};  // the stop word's staging: 1 once the caller has cancelled
    bool stop_sent{false};          // the kernels were asked to stop: every sum may be partial
    moments* h_sums{nullptr};
    const greek_reduction* greeks{nullptr};  // requests with Greeks: what their sums are
    unsigned char* h_greeks{nullptr};        // and their segment sums
    unsigned long long* d_tally{nullptr};    // the outcome counters (request_upload::tally_slots)
    unsigned long long* h_tally{nullptr};    // and their copy back
    order_token uploaded{0};
    std::vector<job_trace>* traces{nullptr};  // traced calls only
    // A traced call's upload on the device; its stop: when the host sent it, and its copy's turn
    // and landing on the device.
    std::shared_ptr<job_trace> upload_trace;
    std::shared_ptr<job_trace> stop_trace;
    double stop_sent_at{0.0};
  };
  // A request's bytes on the device (records, tables, offsets, counters) and in its staging
  // (the same, then the sums copied back).
  struct request_sizes {
    std::size_t device{0};
    std::size_t staging{0};
  };

  family_run plan(const request_upload& u, const run_control& control, request_state& r) const;
  std::vector<stream_view> queue_jobs(const request_state& r, const run_control& control, const job_kernels& kernels,
                                      family_run& run) const;
  [[nodiscard]] std::int64_t job_size(std::int64_t total_blocks, std::size_t max_jobs) const;
  [[nodiscard]] std::size_t plan_cap() const noexcept;
  [[nodiscard]] std::size_t job_need(const request_upload& u, std::int64_t blocks, std::size_t segments) const;
  [[nodiscard]] std::size_t scratch_need(std::int64_t blocks, std::size_t segments,
                                         const greek_reduction* greeks) const;
  [[nodiscard]] request_sizes sizes_of(const request_upload& u, std::size_t segments) const;
  void upload(const request_upload& u, request_state& r, device_buffer& device_data, pinned_buffer& staging) const;
  void stage(const request_upload& u, request_state& r, void* device_data, std::size_t device_bytes, char* host,
             std::size_t host_bytes) const;
  void queue_upload(const request_upload& u, const request_state& r, stream_view s) const;
  void keep_results(const request_upload& u, const request_state& r, const run_control& control, family_run& run) const;
  void run_admitted_job(const job_range& job, const request_state& r, stream_view s, int job_no,
                        const job_kernels& kernels) const;
  void run_job(const job_range& job, const request_state& r, stream_view s, int job_no, const job_kernels& kernels,
               const scratch_source& from) const;
  void collect(const std::vector<stream_view>& used, bool spin) const;
  void stop_if_cancelled(request_state& r, const run_control& control) const;
  // A request's stop from its upload to its end: watched by the stop watch while its caller may
  // cancel (stop_watch.hpp), and on any way out, once a stop was sent, its copy (which reads the
  // request's staging and writes its device buffer) waited for before either goes back to its
  // cache.
  class request_stop {
   public:
    request_stop(const job_runner& runner, request_state& r, const run_control& control);
    ~request_stop();
    request_stop(const request_stop&) = delete;
    request_stop& operator=(const request_stop&) = delete;
    // After the request is collected: no stop is sent from here on; one that failed to be sent
    // fails the request.
    void end();

   private:
    const job_runner& runner_;
    const request_state& r_;
    stop_watch::entry watched_;
    bool ended_{false};
  };
  void send_stop(request_state& r) const;
  struct device_clock;
  std::shared_ptr<const device_clock> device_clock_of(run_timeline& timeline) const;
  void trace_request(run_timeline& timeline, const device_clock& clock, std::size_t chunk, double submitted_from,
                     double collect_from, const request_state& r) const;

  gpu_context& ctx_;
  std::size_t job_cap_;
  mutable std::once_flag trace_stream_once_;
  mutable std::optional<stream> trace_stream_;  // idle: the traced calls' device clock is recorded there
  mutable stop_watch stops_;                    // sends stops on the context's stop stream (send_stop)
  std::unique_ptr<job_graphs> graphs_;          // graphs on only
};

}  // namespace mcprice::detail
