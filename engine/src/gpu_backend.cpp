#include "gpu_context.hpp"
#include "mcprice/kernels/european_launcher.hpp"
#include "mcprice/memory/cuda_error.hpp"
#include "mcprice/memory/device_info.hpp"
#include "mcprice/memory/persistent_arena.hpp"
#include "mcprice/memory/scratch_lease.hpp"
#include "pricing_backend.hpp"
#include "work_plan.hpp"

#include <cstring>

namespace mcprice::detail {
namespace {

// Without a cap, a job still stops at this many blocks (16 bytes of moments each: 64 MiB).
constexpr std::int64_t max_blocks_per_job = std::int64_t{1} << 22;

std::size_t round256(std::size_t b) { return scratch_lease::charged(b); }

class gpu_backend final : public pricing_backend {
 public:
  gpu_backend(const engine_options& o, const market_data& market, std::vector<std::string>& notices)
      : grid_blocks_(o.grid_blocks), job_cap_(o.job_cap_bytes), name_(query_device(o.device).name),
        ctx_(o, market, notices)
  {
  }

  std::vector<european_outcome> run_european(const std::vector<european_gbm_trade>& trades,
                                             std::int64_t total_blocks,
                                             const progress_callback& progress) const override
  {
    MCPRICE_CUDA_TRY(cudaSetDevice(ctx_.device()));
    segment_plan const plan = plan_segments(trades, total_blocks);
    auto const need = [](std::int64_t blocks, std::size_t segments) {
      std::size_t temp = 0;
      kernels::segmented_moments_sum(nullptr, temp, nullptr, nullptr, 0, static_cast<int>(segments), nullptr, nullptr);
      return round256(sizeof(moments) * static_cast<std::size_t>(blocks)) + round256(sizeof(moments) * segments) +
             round256(temp);
    };
    job_split const split = plan_jobs(plan, job_cap_, max_blocks_per_job, need);

    std::vector<european_outcome> out(trades.size());
    for (std::size_t t : split.trades_too_large) {
      out[t].error = "--job-cap " + std::to_string(job_cap_) + " bytes is smaller than the " +
                     std::to_string(split.smallest_need) + " bytes one chunk of this trade needs";
    }
    if (split.jobs.empty()) return out;

    stream_view const s = ctx_.next_stream();
    ctx_.wait_for_market(s);

    // Request-lifetime data, uploaded once before any job: the trade table and the segment
    // offsets (in a cached device buffer, never the scratch pool), and pinned staging that also
    // receives the segment sums.
    std::size_t const n_seg = plan.segments.size();
    std::size_t const trade_bytes = sizeof(european_gbm_trade) * trades.size();
    std::size_t const offset_bytes = sizeof(std::int64_t) * (n_seg + 1);
    std::size_t const sums_bytes = sizeof(moments) * n_seg;
    auto device_data = ctx_.request_buffers().acquire(arena_view::footprint({trade_bytes, offset_bytes}));
    auto staging = ctx_.staging().acquire(trade_bytes + offset_bytes + sums_bytes);
    char* const host = staging.get().as<char>();
    std::memcpy(host, trades.data(), trade_bytes);
    auto* const h_offsets = reinterpret_cast<std::int64_t*>(host + trade_bytes);
    for (std::size_t i = 0; i < n_seg; ++i) h_offsets[i] = plan.segments[i].first_block;
    h_offsets[n_seg] = total_blocks;
    auto* const h_sums = reinterpret_cast<moments*>(host + trade_bytes + offset_bytes);
    arena_view request_data(device_data.get().data(), device_data.get().size());
    auto* const d_trades = request_data.allocate_n<european_gbm_trade>(trades.size());
    auto* const d_offsets = request_data.allocate_n<std::int64_t>(n_seg + 1);
    MCPRICE_CUDA_TRY(cudaMemcpyAsync(d_trades, host, trade_bytes, cudaMemcpyHostToDevice, s.value()));
    MCPRICE_CUDA_TRY(cudaMemcpyAsync(d_offsets, h_offsets, offset_bytes, cudaMemcpyHostToDevice, s.value()));

    int job_no = 0;
    for (const job_range& job : split.jobs) {
      run_job(job, plan, d_trades, static_cast<int>(trades.size()), d_offsets, h_sums, s, job_no++);
    }
    event done;
    done.record(s);
    done.synchronize();  // the results are needed on the host; no device-wide wait

    std::vector<moments> sums(h_sums, h_sums + n_seg);
    auto const totals = combine_segments(plan, sums, trades.size());
    for (std::size_t i = 0; i < trades.size(); ++i) out[i].sums = totals[i];
    if (progress) {
      std::int64_t total = 0;
      for (auto const& t : trades) total += t.samples;
      progress(total, total);
    }
    return out;
  }

  [[nodiscard]] backend_kind kind() const noexcept override { return backend_kind::gpu; }
  [[nodiscard]] const std::string& name() const noexcept override { return name_; }
  [[nodiscard]] std::optional<memory_report> memory() const override { return ctx_.report(); }
  void trim_memory() const override { ctx_.trim(); }

 private:
  // One job on stream s: scratch from a capped lease, the kernel over the job's blocks, the
  // fixed-order segment sums, and their copy to pinned memory; the lease's frees are queued
  // behind all of it.
  void run_job(const job_range& job, const segment_plan& plan, const european_gbm_trade* d_trades, int n_trades,
               const std::int64_t* d_offsets, moments* h_sums, stream_view s, int job_no) const
  {
    std::int64_t const first = job.first_block(plan);
    std::int64_t const end = job.end_block(plan);
    auto const segs = static_cast<int>(job.end_segment - job.first_segment);
    scratch_lease lease(ctx_.scratch(), s, job_cap_, "job " + std::to_string(job_no), [this] { ctx_.note_cap_rejection(); });
    auto* const d_blocks = lease.allocate_n<moments>(static_cast<std::size_t>(end - first));
    auto* const d_sums = lease.allocate_n<moments>(static_cast<std::size_t>(segs));
    std::size_t temp_bytes = 0;
    kernels::segmented_moments_sum(nullptr, temp_bytes, d_blocks, d_offsets + job.first_segment, first, segs, d_sums,
                                   s.value());
    void* const temp = lease.allocate(temp_bytes);
    kernels::launch_european_blocks(d_trades, n_trades, first, end, d_blocks, grid_blocks_, s.value());
    kernels::segmented_moments_sum(temp, temp_bytes, d_blocks, d_offsets + job.first_segment, first, segs, d_sums,
                                   s.value());
    MCPRICE_CUDA_TRY(cudaMemcpyAsync(h_sums + job.first_segment, d_sums, sizeof(moments) * static_cast<std::size_t>(segs),
                                     cudaMemcpyDeviceToHost, s.value()));
  }

  int grid_blocks_;
  std::size_t job_cap_;
  std::string name_;
  mutable gpu_context ctx_;
};

}  // namespace

std::unique_ptr<pricing_backend> make_gpu_backend(const engine_options& options, const market_data& market,
                                                  std::vector<std::string>& notices)
{
  return std::make_unique<gpu_backend>(options, market, notices);
}

}  // namespace mcprice::detail
