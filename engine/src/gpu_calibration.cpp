#include "gpu_calibration.hpp"

#include "mcprice/kernels/early_exercise_launcher.hpp"
#include "mcprice/memory/cuda_error.hpp"
#include "mcprice/memory/persistent_arena.hpp"
#include "mcprice/memory/scratch_lease.hpp"
#include "nvtx_range.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <stdexcept>
#include <optional>

namespace mcprice::detail {
namespace {

class gpu_calibration final : public calibration_executor {
 public:
  gpu_calibration(gpu_context& ctx, const exercise_family& f, const exercise_table_layout& l, std::size_t job_cap,
                  int grid_blocks, bool resident)
      : ctx_(ctx), f_(f), layout_(l), cap_(job_cap), grid_(grid_blocks), stream_(ctx.next_stream()),
        n_(static_cast<int>(f.trades.size())), split_(resident && latency_bound(ctx, f)), fixed_steps_(fixed_steps_of(f, split_)),
        fixed_run_(fixed_run_of(f, fixed_steps_)),
        device_(ctx.request_buffers().acquire(arena_view::footprint(
            {sizeof(exercise_trade) * f.trades.size(), sizeof(kernels::calibration_start) * f.trades.size(), l.bytes,
             sizeof(regression_sums) * static_cast<std::size_t>(f.calibration_blocks),
             sizeof(regression_sums) * f.trades.size(), fixed_sums_bytes(), fixed_totals_bytes(),
             sizeof(unsigned int)}))),
        staging_(ctx.staging().acquire(
            std::max({l.bytes, sizeof(regression_sums) * f.trades.size(), fixed_totals_bytes()}))),
        folded_(split_ && n_ * regression_moving_doubles <= max_folded_tasks
                    ? std::optional(ctx.staging().acquire(folded_bytes(n_)))
                    : std::nullopt)
  {
    arena_view arena(device_.get().data(), device_.get().size());
    d_trades_ = arena.allocate_n<exercise_trade>(f.trades.size());
    d_starts_ = arena.allocate_n<kernels::calibration_start>(f.trades.size());
    d_tables_ = arena.allocate(l.bytes);
    d_block_sums_ = arena.allocate_n<regression_sums>(static_cast<std::size_t>(f.calibration_blocks));
    d_trade_sums_ = arena.allocate_n<regression_sums>(f.trades.size());
    if (fixed_steps_ > 0) {
      d_fixed_sums_ = static_cast<double*>(arena.allocate(fixed_sums_bytes()));
      d_fixed_totals_ = static_cast<double*>(arena.allocate(fixed_totals_bytes()));
    }
    auto* const blocks_done = arena.allocate_n<unsigned int>(1);
    if (folded_) {
      // Pinned memory is the device's too (unified addressing): the kernel writes it directly.
      auto* const host = static_cast<unsigned char*>(folded_->get().data());
      void* device = nullptr;
      MCPRICE_CUDA_TRY(cudaHostGetDevicePointer(&device, host, 0));
      fold_.blocks_done = blocks_done;
      fold_.totals = static_cast<double*>(device);
      fold_.flag = reinterpret_cast<volatile unsigned int*>(static_cast<unsigned char*>(device) + flag_offset(n_));
      fold_.total_blocks = f.calibration_blocks;
      host_flag_ = reinterpret_cast<volatile unsigned int*>(host + flag_offset(n_));
      host_totals_ = reinterpret_cast<const double*>(host);
      MCPRICE_CUDA_TRY(cudaMemsetAsync(blocks_done, 0, sizeof(unsigned int), stream_.value()));
    }
    // Trade records and calibration starts go up through a pageable copy (once per family);
    // the tables through the pinned staging, which later receives the sums.
    std::vector<kernels::calibration_start> starts;
    for (auto const& t : f.trades) starts.push_back({t.first_calibration_block});
    auto const s = stream_.value();
    MCPRICE_CUDA_TRY(cudaMemcpyAsync(d_trades_, f.trades.data(), sizeof(exercise_trade) * f.trades.size(),
                                     cudaMemcpyHostToDevice, s));
    MCPRICE_CUDA_TRY(cudaMemcpyAsync(d_starts_, starts.data(), sizeof(kernels::calibration_start) * starts.size(),
                                     cudaMemcpyHostToDevice, s));
    auto const tables = pack_tables(f, {}, l);
    std::memcpy(staging_.get().data(), tables.data(), tables.size());
    MCPRICE_CUDA_TRY(cudaMemcpyAsync(d_tables_, staging_.get().data(), l.bytes, cudaMemcpyHostToDevice, s));
    // Trades with no job (too large for the cap) sum zeros rather than stale memory.
    MCPRICE_CUDA_TRY(cudaMemsetAsync(d_block_sums_, 0, sizeof(regression_sums) * static_cast<std::size_t>(f.calibration_blocks), s));
    MCPRICE_CUDA_TRY(cudaStreamSynchronize(s));  // the pageable sources leave scope
  }

  ~gpu_calibration() override
  {
    // Queued kernels read the request buffers and the lease: both go back only after them.
    MCPRICE_CUDA_TRY_NOTHROW(cudaStreamSynchronize(stream_.value()));
  }
  gpu_calibration(const gpu_calibration&) = delete;
  gpu_calibration& operator=(const gpu_calibration&) = delete;

  void simulate(const calibration_job& job) override
  {
    nvtx_range const range("calibration paths");
    // The previous job's scratch returns in stream order, behind its kernels.
    lease_.reset();
    lease_.emplace(ctx_.scratch(), stream_, cap_, "calibration job", [this] { ctx_.note_cap_rejection(); });
    auto const paths = static_cast<std::size_t>(job.end_block - job.first_block) * calibration_paths_per_block;
    view_.paths = lease_->allocate_n<float>(static_cast<std::size_t>(job.end_float - job.first_float));
    view_.cash_flows = lease_->allocate_n<float>(paths);
    view_.job_first_block = job.first_block;
    view_.job_first_float = job.first_float;
    kernels::launch_calibration_paths(d_trades_, d_starts_, n_, tables(), view_, job.end_block, grid_, stream_.value());
    if (split_) sum_fixed_parts(job);
  }

  void backward(const calibration_job& job, int from_step, int step) override
  {
    nvtx_range const range("calibration step");
    step_ = step;
    if (folded_) {
      // A fresh tag a launch; the flag is cleared first, so a value left from an earlier use of
      // the buffer can never pass for this step's.
      *host_flag_ = 0U;
      std::atomic_thread_fence(std::memory_order_seq_cst);
      fold_.tag = ++launches_;
    }
    kernels::launch_calibration_backward(d_trades_, d_starts_, n_, tables(), view_, job.end_block, from_step, step,
                                         d_block_sums_, split_, fold_, grid_, stream_.value());
  }

  std::vector<regression_sums> trade_sums() override
  {
    if (folded_) return folded_sums();
    auto const s = stream_.value();
    kernels::launch_regression_totals(d_starts_, n_, f_.calibration_blocks, d_block_sums_, d_trade_sums_, split_, s);
    std::size_t const bytes = sizeof(regression_sums) * f_.trades.size();
    MCPRICE_CUDA_TRY(cudaMemcpyAsync(staging_.get().data(), d_trade_sums_, bytes, cudaMemcpyDeviceToHost, s));
    MCPRICE_CUDA_TRY(cudaStreamSynchronize(s));
    std::vector<regression_sums> out(f_.trades.size());
    std::memcpy(out.data(), staging_.get().data(), bytes);
    if (split_) join_fixed_part(out);
    return out;
  }

  // The staging is free here: its last use (the sums' copy, or the tables' upload) was waited
  // for; the next sums' copy queues behind this upload on the same stream. A step changes one
  // date's row per trade: uploading the whole table each step cost the 1,260-date trades 50 KB
  // a step.
  void publish(const std::vector<float>& coefficients, std::size_t begin, std::size_t end) override
  {
    std::size_t const bytes = sizeof(float) * (end - begin);
    std::size_t const offset = sizeof(float) * begin;
    auto* const staged = static_cast<unsigned char*>(staging_.get().data()) + offset;
    std::memcpy(staged, coefficients.data() + begin, bytes);
    MCPRICE_CUDA_TRY(cudaMemcpyAsync(static_cast<unsigned char*>(d_tables_) + layout_.coefficients + offset, staged,
                                     bytes, cudaMemcpyHostToDevice, stream_.value()));
  }

 private:
  [[nodiscard]] exercise_tables tables() const { return tables_at(d_tables_, layout_); }

  static constexpr int latency_bound_blocks_per_sm = 4;

  // Whether a backward step is bound by its chain of latencies (kernel, copy, host wait, solve,
  // launch) rather than by its work: a few calibration blocks an SM at most. Only then is the
  // step's fixed part worth summing up front; with many blocks (Longstaff and Schwartz's 2^20
  // paths: 4,096) the step is throughput-bound, and summing the parts apart (each reading the
  // stored paths) measured 10% slower.
  static bool latency_bound(const gpu_context& ctx, const exercise_family& f)
  {
    int sms = 0;
    MCPRICE_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, ctx.device()));
    return f.calibration_blocks <= latency_bound_blocks_per_sm * std::int64_t{sms};
  }

  // Steps whose fixed part is summed up front (every step, the totals' step included: its
  // fixed part is zeros); none unless the sums are split.
  static int fixed_steps_of(const exercise_family& f, bool split) { return split ? backward_steps(f) : 0; }

  // Steps summed per launch: their block sums within fixed_scratch_budget, and at most
  // max_fixed_run (the totals kernel's grid takes a step a z index, at most 65,535).
  static int fixed_run_of(const exercise_family& f, int steps)
  {
    std::size_t const per_step = sizeof(double) * regression_fixed_doubles * static_cast<std::size_t>(f.calibration_blocks);
    auto const fit = static_cast<int>(std::min<std::size_t>(
        {fixed_scratch_budget / std::max<std::size_t>(per_step, 1), static_cast<std::size_t>(steps), max_fixed_run}));
    return steps > 0 ? std::max(fit, 1) : 0;
  }
  static constexpr std::size_t max_fixed_run = 4096;

  [[nodiscard]] std::size_t fixed_sums_bytes() const
  {
    return sizeof(double) * regression_fixed_doubles * static_cast<std::size_t>(f_.calibration_blocks) *
           static_cast<std::size_t>(fixed_run_);
  }
  [[nodiscard]] std::size_t fixed_totals_bytes() const
  {
    return sizeof(double) * regression_fixed_doubles * f_.trades.size() * static_cast<std::size_t>(fixed_steps_);
  }

  // Every step's fixed part, run by run, then all of it to the host (one wait).
  void sum_fixed_parts(const calibration_job& job)
  {
    nvtx_range const range("calibration fixed sums");
    auto const s = stream_.value();
    for (int begin = 0; begin < fixed_steps_; begin += fixed_run_) {
      int const end = std::min(fixed_steps_, begin + fixed_run_);
      // Blocks outside the job (trades too large for the cap) sum zeros.
      MCPRICE_CUDA_TRY(cudaMemsetAsync(d_fixed_sums_, 0, fixed_sums_bytes(), s));
      kernels::launch_calibration_fixed(d_trades_, d_starts_, n_, tables(), view_, job.end_block, f_.calibration_blocks,
                                        begin, end, d_fixed_sums_,
                                        d_fixed_totals_ + static_cast<std::size_t>(begin) * f_.trades.size() *
                                                              regression_fixed_doubles,
                                        grid_, s);
    }
    MCPRICE_CUDA_TRY(cudaMemcpyAsync(staging_.get().data(), d_fixed_totals_, fixed_totals_bytes(),
                                     cudaMemcpyDeviceToHost, s));
    MCPRICE_CUDA_TRY(cudaStreamSynchronize(s));
    fixed_.resize(fixed_totals_bytes() / sizeof(double));
    std::memcpy(fixed_.data(), staging_.get().data(), fixed_totals_bytes());
  }

  // A part's slots, in order, into their places in the sums.
  template <sums_part P>
  static void place(const double* slots, regression_sums& sums)
  {
    auto* const to = reinterpret_cast<double*>(&sums);
    for (int k = 0; k < part_doubles<P>; ++k) to[part_component<P>(k)] = slots[k];
  }

  // The step's fixed part into the trades' sums, whose moving part the step summed.
  void join_fixed_part(std::vector<regression_sums>& sums) const
  {
    for (std::size_t i = 0; i < sums.size(); ++i) {
      place<sums_part::fixed>(fixed_.data() + (static_cast<std::size_t>(step_) * sums.size() + i) * regression_fixed_doubles,
                              sums[i]);
    }
  }

  // The step's sums from the kernel's own totals: waits (spinning: a step takes tens of
  // microseconds) for the flag, checking the stream now and then so that a failed launch is
  // reported rather than waited on for ever.
  std::vector<regression_sums> folded_sums() const
  {
    nvtx_range const range("calibration sums (folded)");
    for (std::uint64_t spins = 1; *host_flag_ != fold_.tag; ++spins) {
      if (spins % 4096 != 0) continue;
      cudaError_t const status = cudaStreamQuery(stream_.value());
      if (status == cudaErrorNotReady) continue;
      if (status != cudaSuccess) throw cuda_error(status, "calibration_backward_kernel (folded totals)", __FILE__, __LINE__);
      std::atomic_thread_fence(std::memory_order_seq_cst);
      if (*host_flag_ != fold_.tag) {
        throw std::logic_error("calibration: the backward step finished without its totals");
      }
    }
    std::atomic_thread_fence(std::memory_order_acquire);
    std::vector<regression_sums> out(f_.trades.size(), regression_sums{});
    for (std::size_t i = 0; i < out.size(); ++i) place<sums_part::moving>(host_totals_ + i * regression_moving_doubles, out[i]);
    join_fixed_part(out);
    return out;
  }

  static std::size_t flag_offset(int trades)
  {
    return (sizeof(double) * regression_moving_doubles * static_cast<std::size_t>(trades) + 63) / 64 * 64;
  }
  static std::size_t folded_bytes(int trades) { return flag_offset(trades) + 64; }

  // Trades x moving slots the last block sums itself (8 warps): beyond this, a kernel of its own.
  static constexpr int max_folded_tasks = 8 * regression_moving_doubles;

  // Device memory for the fixed part's block sums of one run of steps.
  static constexpr std::size_t fixed_scratch_budget = std::size_t{32} << 20;

  gpu_context& ctx_;
  const exercise_family& f_;
  exercise_table_layout layout_;
  std::size_t cap_;
  int grid_;
  stream_view stream_;
  int n_;
  bool split_;  // fixed part up front, moving part a step (latency_bound, resident paths)
  int fixed_steps_;
  int fixed_run_;
  int step_{0};
  std::vector<double> fixed_;  // every step's fixed totals (fixed_totals_bytes)
  unsigned int launches_{0};
  buffer_cache<cuda_malloc_traits>::handle device_;
  buffer_cache<pinned_host_traits>::handle staging_;
  std::optional<buffer_cache<pinned_host_traits>::handle> folded_;  // the kernel's totals and flag
  kernels::folded_totals fold_{};
  volatile unsigned int* host_flag_{nullptr};
  const double* host_totals_{nullptr};
  exercise_trade* d_trades_{nullptr};
  kernels::calibration_start* d_starts_{nullptr};
  void* d_tables_{nullptr};
  regression_sums* d_block_sums_{nullptr};
  regression_sums* d_trade_sums_{nullptr};
  double* d_fixed_sums_{nullptr};
  double* d_fixed_totals_{nullptr};
  std::optional<scratch_lease> lease_;
  calibration_view view_{};
};

}  // namespace

std::unique_ptr<calibration_executor> make_gpu_calibration(gpu_context& ctx, const exercise_family& f,
                                                          const exercise_table_layout& l, std::size_t job_cap,
                                                          int grid_blocks, bool resident)
{
  return std::make_unique<gpu_calibration>(ctx, f, l, job_cap, grid_blocks, resident);
}

}  // namespace mcprice::detail
