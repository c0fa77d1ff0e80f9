#include "backends/gpu/gpu_calibration.hpp"

#include "backends/gpu/calibration_stop.hpp"
#include "backends/gpu/nvtx_range.hpp"
#include "mcprice/kernels/launch/exercise.hpp"
#include "mcprice/memory/cuda_error.hpp"
#include "mcprice/memory/persistent_arena.hpp"
#include "mcprice/memory/scratch_lease.hpp"

#include <algorithm>
#include <cstring>
#include <optional>
#include <utility>

namespace mcprice::detail {
namespace {

class gpu_calibration final : public calibration_executor {
 public:
  gpu_calibration(gpu_context& ctx, const exercise_family& f, const exercise_table_layout& l, std::size_t job_cap,
                  int grid_blocks, bool resident, bool one_launch, const std::atomic<bool>* cancel)
      : ctx_(ctx),
        one_launch_(one_launch),
        f_(f),
        layout_(l),
        cap_(job_cap),
        grid_(grid_blocks),
        stream_(ctx.next_stream()),
        n_(static_cast<int>(f.trades.size())),
        split_(resident && latency_bound(ctx, f)),
        fixed_steps_(fixed_steps_of(f, split_)),
        fixed_run_(fixed_run_of(f, fixed_steps_)),
        device_(ctx.request_buffers().acquire(arena_view::footprint(
            {sizeof(exercise_trade) * f.trades.size(), sizeof(kernels::calibration_start) * f.trades.size(), l.bytes,
             sizeof(regression_sums) * static_cast<std::size_t>(f.calibration_blocks) * block_sum_generations(),
             sizeof(regression_sums) * f.trades.size(), fixed_sums_bytes(), fixed_totals_bytes(),
             sizeof(double) * f.trades.size(), sizeof(unsigned int), sizeof(unsigned int)}))),
        // The tables (later the coefficients copied back), the continuation values copied back,
        // the trade records, the calibration starts and the stop word.
        staging_(ctx.staging().acquire(
            arena_view::footprint({l.bytes, sizeof(double) * f.trades.size(), sizeof(exercise_trade) * f.trades.size(),
                                   sizeof(kernels::calibration_start) * f.trades.size(), sizeof(unsigned int)})))
  {
    arena_view arena(device_.get().data(), device_.get().size());
    d_trades_ = arena.allocate_n<exercise_trade>(f.trades.size());
    d_starts_ = arena.allocate_n<kernels::calibration_start>(f.trades.size());
    d_tables_ = arena.allocate(l.bytes);
    d_block_sums_ =
        arena.allocate_n<regression_sums>(static_cast<std::size_t>(f.calibration_blocks) * block_sum_generations());
    d_trade_sums_ = arena.allocate_n<regression_sums>(f.trades.size());
    if (fixed_steps_ > 0) {
      d_fixed_sums_ = static_cast<double*>(arena.allocate(fixed_sums_bytes()));
      d_fixed_totals_ = static_cast<double*>(arena.allocate(fixed_totals_bytes()));
    }
    d_continuation_ = arena.allocate_n<double>(f.trades.size());
    auto* const blocks_done = arena.allocate_n<unsigned int>(1);
    auto* const d_stop = arena.allocate_n<unsigned int>(1);
    out_.coefficients = reinterpret_cast<float*>(static_cast<unsigned char*>(d_tables_) + layout_.coefficients);
    out_.continuation_today = d_continuation_;
    out_.fixed_totals = d_fixed_totals_;
    if (folded()) {
      fold_.blocks_done = blocks_done;
      fold_.total_blocks = f.calibration_blocks;
      MCPRICE_CUDA_TRY(cudaMemsetAsync(blocks_done, 0, sizeof(unsigned int), stream_.value()));
    }
    // Tables, trade records and calibration starts go up from the pinned staging, which later
    // receives the results (collect). Never from pageable memory: such a copy on a stream with
    // a job queued ahead holds the calling thread until that job ends, and other threads' calls
    // with it (a request's stop among them; docs/reliability.md).
    arena_view staged(staging_.get().data(), staging_.get().size());
    h_tables_ = staged.allocate(l.bytes);
    h_continuation_ = staged.allocate_n<double>(f.trades.size());
    auto* const trades = staged.allocate_n<exercise_trade>(f.trades.size());
    auto* const starts = staged.allocate_n<kernels::calibration_start>(f.trades.size());
    stop_.emplace(ctx_, cancel, d_stop, staged.allocate_n<unsigned int>(1), stream_);
    auto const tables = pack_tables(f, {}, l);
    std::memcpy(h_tables_, tables.data(), tables.size());
    std::copy(f.trades.begin(), f.trades.end(), trades);
    for (std::size_t i = 0; i < f.trades.size(); ++i) starts[i] = {f.trades[i].first_calibration_block};
    auto const s = stream_.value();
    MCPRICE_CUDA_TRY(cudaMemcpyAsync(d_tables_, h_tables_, l.bytes, cudaMemcpyHostToDevice, s));
    MCPRICE_CUDA_TRY(
        cudaMemcpyAsync(d_trades_, trades, sizeof(exercise_trade) * f.trades.size(), cudaMemcpyHostToDevice, s));
    MCPRICE_CUDA_TRY(cudaMemcpyAsync(d_starts_, starts, sizeof(kernels::calibration_start) * f.trades.size(),
                                     cudaMemcpyHostToDevice, s));
    // Trades with no job (too large for the cap) sum zeros rather than stale memory.
    MCPRICE_CUDA_TRY(cudaMemsetAsync(
        d_block_sums_, 0,
        sizeof(regression_sums) * static_cast<std::size_t>(f.calibration_blocks) * block_sum_generations(), s));
    MCPRICE_CUDA_TRY(cudaMemsetAsync(d_continuation_, 0, sizeof(double) * f.trades.size(), s));
  }

  ~gpu_calibration() override
  {
    // Queued kernels read the request buffers and the lease: both go back only after them,
    // which a cancelled calibration asks to come soon.
    if (stop_) stop_->settle();
    MCPRICE_CUDA_TRY_NOTHROW(cudaStreamSynchronize(stream_.value()));
    if (paced_) ctx_.events().release(*paced_);
  }
  gpu_calibration(const gpu_calibration&) = delete;
  gpu_calibration& operator=(const gpu_calibration&) = delete;

  void simulate(const calibration_job& job) override
  {
    nvtx_range const range("calibration paths");
    // The previous job's scratch returns in stream order, behind its kernels.
    lease_.reset();
    lease_.emplace(ctx_.scratch(), stream_, cap_, "calibration job", [this] { ctx_.note_cap_rejection(); });
    lease_->record_into(ctx_.recorder());
    auto const paths = static_cast<std::size_t>(job.end_block - job.first_block) * calibration_paths_per_block;
    view_.paths = lease_->allocate_n<float>(static_cast<std::size_t>(job.end_float - job.first_float));
    view_.cash_flows = lease_->allocate_n<float>(paths);
    view_.job_first_block = job.first_block;
    view_.job_first_float = job.first_float;
    kernels::launch_calibration_paths(calibration(), job.end_block, target());
    if (split_) sum_fixed_parts(job);
  }

  void backward(const calibration_job& job, int from_step, int step) override
  {
    nvtx_range const range("calibration step");
    kernels::launch_calibration_backward(calibration(), job.end_block, from_step, step, d_block_sums_, split_, fold_,
                                         out_, target());
  }

  // Folded families' steps all in one cooperative launch where their blocks fit the GPU at once,
  // and only while no request has work on the device: a cooperative launch waits for every
  // running kernel to end, and holds back all work queued after it meanwhile, the stop words'
  // copies too (docs/reliability.md). The steps launched one by one give the same bits.
  bool backward_all(const calibration_job& job, int steps) override
  {
    if (!folded() || !one_launch_ || ctx_.requests_in_flight()) return false;
    nvtx_range const range("calibration steps (one launch)");
    return kernels::launch_calibration_steps(calibration(), job.end_block, f_.calibration_blocks, steps, d_block_sums_,
                                             out_, stream_.value());
  }

  // Folded steps solved in the backward kernel; the others' sums are totalled, then solved, by
  // kernels of their own. Either way in stream order: the host queues the steps without waiting.
  void regress(int step) override
  {
    if (!folded()) {
      auto const s = stream_.value();
      kernels::launch_regression_totals(d_starts_, n_, f_.calibration_blocks, d_block_sums_, d_trade_sums_, split_, s);
      kernels::launch_regression_solve(d_trades_, n_, step, d_trade_sums_, out_, s);
    }
    pace(step);
  }

  void collect(std::vector<float>& coefficients, std::vector<double>& continuation_today) override
  {
    nvtx_range const range("calibration results");
    auto const s = stream_.value();
    std::size_t const coefficient_bytes = sizeof(float) * coefficients.size();
    std::size_t const continuation_bytes = sizeof(double) * continuation_today.size();
    MCPRICE_CUDA_TRY(cudaMemcpyAsync(h_tables_, out_.coefficients, coefficient_bytes, cudaMemcpyDeviceToHost, s));
    MCPRICE_CUDA_TRY(cudaMemcpyAsync(h_continuation_, d_continuation_, continuation_bytes, cudaMemcpyDeviceToHost, s));
    MCPRICE_CUDA_TRY(cudaStreamSynchronize(s));
    std::memcpy(coefficients.data(), h_tables_, coefficient_bytes);
    std::memcpy(continuation_today.data(), h_continuation_, continuation_bytes);
  }

 private:
  // At most two paces of steps queued ahead of the device. The step-by-step route queues three
  // launches a step or more, hundreds a calibration, on a pool stream often behind a long job;
  // once the driver's queue of pending work is full, a launch blocks holding the context, and
  // every other thread's CUDA call (a stop's copy, an event's poll) waits with it. Traced with
  // libmcprice-slow-calls.so on an H100: regression and Greek launches blocked 0.6-4.3 s
  // beside a book's Greek jobs, every other thread's calls with them (docs/reliability.md).
  // The host waits for a pace's mark without holding anything.
  void pace(int step)
  {
    if ((step + 1) % pace_steps != 0) return;
    if (paced_) {
      stop_->wait(*paced_);
      ctx_.events().release(*std::exchange(paced_, std::nullopt));
    }
    paced_ = ctx_.events().record(stream_);
  }

  [[nodiscard]] exercise_tables tables() const { return tables_at(d_tables_, layout_, ctx_.surfaces<float>()); }
  // The calibration's trades, tables and current job, as its kernels read them.
  [[nodiscard]] kernels::calibration_ref calibration() const
  {
    return {d_trades_, d_starts_, n_, tables(), view_, stop_->word()};
  }
  [[nodiscard]] kernels::launch_target target() const { return {stream_.value(), grid_}; }

  // Few trades with split sums: the step's regressions solved on the device by the steps' own
  // kernels (the backward kernel's last block, or the one-launch kernel).
  [[nodiscard]] bool folded() const { return split_ && n_ <= kernels::max_folded_trades; }
  // The one-launch kernel keeps two steps' block sums.
  [[nodiscard]] std::size_t block_sum_generations() const { return folded() ? 2 : 1; }

  static constexpr int latency_bound_blocks_per_sm = 4;

  // Whether a backward step is bound by its chain of latencies (launch or barrier, sums, totals,
  // solve) rather than by its work: a few calibration blocks an SM at most. Only then is the
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
    std::size_t const per_step =
        sizeof(double) * regression_fixed_doubles * static_cast<std::size_t>(f.calibration_blocks);
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

  // Every step's fixed part, run by run, into d_fixed_totals_ (the steps' solves read it there).
  void sum_fixed_parts(const calibration_job& job)
  {
    nvtx_range const range("calibration fixed sums");
    auto const s = stream_.value();
    for (int begin = 0; begin < fixed_steps_; begin += fixed_run_) {
      int const end = std::min(fixed_steps_, begin + fixed_run_);
      // Blocks outside the job (trades too large for the cap) sum zeros.
      MCPRICE_CUDA_TRY(cudaMemsetAsync(d_fixed_sums_, 0, fixed_sums_bytes(), s));
      kernels::launch_calibration_fixed(
          calibration(), job.end_block, f_.calibration_blocks, begin, end, d_fixed_sums_,
          d_fixed_totals_ + static_cast<std::size_t>(begin) * f_.trades.size() * regression_fixed_doubles, target());
    }
  }

  // Device memory for the fixed part's block sums of one run of steps.
  static constexpr std::size_t fixed_scratch_budget = std::size_t{32} << 20;
  static constexpr int pace_steps = 8;

  gpu_context& ctx_;
  bool one_launch_;
  const exercise_family& f_;
  exercise_table_layout layout_;
  std::size_t cap_;
  int grid_;
  stream_view stream_;
  int n_;
  bool split_;  // fixed part up front, moving part a step (latency_bound, resident paths)
  int fixed_steps_;
  int fixed_run_;
  buffer_cache<cuda_malloc_traits>::handle device_;
  buffer_cache<pinned_host_traits>::handle staging_;
  kernels::folded_totals fold_{};  // blocks_done set: the backward kernel solves the step
  kernels::step_regression out_{};
  exercise_trade* d_trades_{nullptr};
  kernels::calibration_start* d_starts_{nullptr};
  void* d_tables_{nullptr};
  regression_sums* d_block_sums_{nullptr};
  regression_sums* d_trade_sums_{nullptr};
  double* d_fixed_sums_{nullptr};
  double* d_fixed_totals_{nullptr};
  double* d_continuation_{nullptr};
  void* h_tables_{nullptr};  // in the staging: the tables going up, the coefficients coming back
  double* h_continuation_{nullptr};
  std::optional<scratch_lease> lease_;
  calibration_view view_{};
  std::optional<order_token> paced_;      // the last pace's mark (pace)
  std::optional<calibration_stop> stop_;  // after the buffers its words are in: it goes first
};

}  // namespace

std::unique_ptr<calibration_executor> make_gpu_calibration(gpu_context& ctx, const exercise_family& f,
                                                           const exercise_table_layout& l, std::size_t job_cap,
                                                           int grid_blocks, bool resident, bool one_launch,
                                                           const std::atomic<bool>* cancel)
{
  return std::make_unique<gpu_calibration>(ctx, f, l, job_cap, grid_blocks, resident, one_launch, cancel);
}

}  // namespace mcprice::detail
