#include "gpu_calibration.hpp"

#include "mcprice/kernels/early_exercise_launcher.hpp"
#include "mcprice/memory/cuda_error.hpp"
#include "mcprice/memory/persistent_arena.hpp"
#include "mcprice/memory/scratch_lease.hpp"
#include "nvtx_range.hpp"

#include <cstring>
#include <optional>

namespace mcprice::detail {
namespace {

class gpu_calibration final : public calibration_executor {
 public:
  gpu_calibration(gpu_context& ctx, const exercise_family& f, const exercise_table_layout& l, std::size_t job_cap,
                  int grid_blocks)
      : ctx_(ctx), f_(f), layout_(l), cap_(job_cap), grid_(grid_blocks), stream_(ctx.next_stream()),
        n_(static_cast<int>(f.trades.size())),
        device_(ctx.request_buffers().acquire(arena_view::footprint(
            {sizeof(exercise_trade) * f.trades.size(), sizeof(kernels::calibration_start) * f.trades.size(), l.bytes,
             sizeof(regression_sums) * static_cast<std::size_t>(f.calibration_blocks),
             sizeof(regression_sums) * f.trades.size()}))),
        staging_(ctx.staging().acquire(std::max(l.bytes, sizeof(regression_sums) * f.trades.size())))
  {
    arena_view arena(device_.get().data(), device_.get().size());
    d_trades_ = arena.allocate_n<exercise_trade>(f.trades.size());
    d_starts_ = arena.allocate_n<kernels::calibration_start>(f.trades.size());
    d_tables_ = arena.allocate(l.bytes);
    d_block_sums_ = arena.allocate_n<regression_sums>(static_cast<std::size_t>(f.calibration_blocks));
    d_trade_sums_ = arena.allocate_n<regression_sums>(f.trades.size());
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
  }

  void backward(const calibration_job& job, int from_step, int step) override
  {
    nvtx_range const range("calibration step");
    kernels::launch_calibration_backward(d_trades_, d_starts_, n_, tables(), view_, job.end_block, from_step, step,
                                         d_block_sums_, grid_, stream_.value());
  }

  std::vector<regression_sums> trade_sums() override
  {
    auto const s = stream_.value();
    kernels::launch_regression_totals(d_starts_, n_, f_.calibration_blocks, d_block_sums_, d_trade_sums_, s);
    std::size_t const bytes = sizeof(regression_sums) * f_.trades.size();
    MCPRICE_CUDA_TRY(cudaMemcpyAsync(staging_.get().data(), d_trade_sums_, bytes, cudaMemcpyDeviceToHost, s));
    MCPRICE_CUDA_TRY(cudaStreamSynchronize(s));
    std::vector<regression_sums> out(f_.trades.size());
    std::memcpy(out.data(), staging_.get().data(), bytes);
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

  gpu_context& ctx_;
  const exercise_family& f_;
  exercise_table_layout layout_;
  std::size_t cap_;
  int grid_;
  stream_view stream_;
  int n_;
  buffer_cache<cuda_malloc_traits>::handle device_;
  buffer_cache<pinned_host_traits>::handle staging_;
  exercise_trade* d_trades_{nullptr};
  kernels::calibration_start* d_starts_{nullptr};
  void* d_tables_{nullptr};
  regression_sums* d_block_sums_{nullptr};
  regression_sums* d_trade_sums_{nullptr};
  std::optional<scratch_lease> lease_;
  calibration_view view_{};
};

}  // namespace

std::unique_ptr<calibration_executor> make_gpu_calibration(gpu_context& ctx, const exercise_family& f,
                                                          const exercise_table_layout& l, std::size_t job_cap,
                                                          int grid_blocks)
{
  return std::make_unique<gpu_calibration>(ctx, f, l, job_cap, grid_blocks);
}

}  // namespace mcprice::detail
