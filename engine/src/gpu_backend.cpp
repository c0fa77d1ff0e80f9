#include "mcprice/kernels/european_launcher.hpp"
#include "mcprice/memory/cuda_error.hpp"
#include "mcprice/memory/device_buffer.hpp"
#include "mcprice/memory/device_info.hpp"
#include "mcprice/memory/pinned_buffer.hpp"
#include "mcprice/memory/stream.hpp"
#include "pricing_backend.hpp"

#include <algorithm>
#include <cstring>

namespace mcprice::detail {
namespace {

// Trades are priced in batches whose block moments fit a bounded buffer (16 bytes a block).
constexpr std::int64_t max_blocks_per_batch = std::int64_t{1} << 22;

class gpu_backend final : public pricing_backend {
 public:
  gpu_backend(int device, int grid_blocks)
      : device_(device), grid_blocks_(grid_blocks), name_(query_device(device).name)
  {
  }

  std::vector<moments> run_european(const std::vector<european_gbm_trade>& trades,
                                    std::int64_t total_blocks,
                                    const progress_callback& progress) const override
  {
    MCPRICE_CUDA_TRY(cudaSetDevice(device_));
    stream const s;
    std::vector<moments> out(trades.size());
    std::int64_t total_paths = 0;
    for (auto const& t : trades) total_paths += t.samples;
    std::int64_t done_paths = 0;

    std::size_t first = 0;
    while (first < trades.size()) {
      std::size_t last = first + 1;  // a trade larger than a batch gets a batch of its own
      auto const end_block = [&](std::size_t i) { return i < trades.size() ? trades[i].first_block : total_blocks; };
      while (last < trades.size() && end_block(last + 1) - trades[first].first_block <= max_blocks_per_batch) ++last;
      run_batch(trades, first, last, end_block(last), out, s.view());
      for (std::size_t i = first; i < last; ++i) done_paths += trades[i].samples;
      if (progress) progress(done_paths, total_paths);
      first = last;
    }
    return out;
  }

  [[nodiscard]] backend_kind kind() const noexcept override { return backend_kind::gpu; }
  [[nodiscard]] const std::string& name() const noexcept override { return name_; }

 private:
  void run_batch(const std::vector<european_gbm_trade>& all, std::size_t first, std::size_t last,
                 std::int64_t end_block, std::vector<moments>& out, stream_view s) const
  {
    auto const n = static_cast<int>(last - first);
    std::int64_t const base = all[first].first_block;
    std::int64_t const blocks = end_block - base;

    // Host staging in pinned memory so the copies are truly asynchronous on the stream.
    std::size_t const trade_bytes = sizeof(european_gbm_trade) * static_cast<std::size_t>(n);
    std::size_t const offset_bytes = sizeof(std::int64_t) * static_cast<std::size_t>(n + 1);
    pinned_buffer staging(trade_bytes + offset_bytes);
    auto* h_trades = staging.as<european_gbm_trade>();
    auto* h_offsets = reinterpret_cast<std::int64_t*>(staging.as<char>() + trade_bytes);
    for (int i = 0; i < n; ++i) {
      h_trades[i] = all[first + static_cast<std::size_t>(i)];
      h_trades[i].first_block -= base;
      h_offsets[i] = h_trades[i].first_block;
    }
    h_offsets[n] = blocks;

    device_buffer d_trades(trade_bytes);
    device_buffer d_offsets(offset_bytes);
    device_buffer d_blocks(sizeof(moments) * static_cast<std::size_t>(blocks));
    device_buffer d_sums(sizeof(moments) * static_cast<std::size_t>(n));
    MCPRICE_CUDA_TRY(cudaMemcpyAsync(d_trades.data(), h_trades, trade_bytes, cudaMemcpyHostToDevice, s.value()));
    MCPRICE_CUDA_TRY(cudaMemcpyAsync(d_offsets.data(), h_offsets, offset_bytes, cudaMemcpyHostToDevice, s.value()));

    kernels::launch_european_blocks(d_trades.as<european_gbm_trade>(), n, blocks, d_blocks.as<moments>(),
                                    grid_blocks_, s.value());
    std::size_t temp_bytes = 0;
    kernels::segmented_moments_sum(nullptr, temp_bytes, d_blocks.as<moments>(), d_offsets.as<std::int64_t>(), n,
                                   d_sums.as<moments>(), s.value());
    device_buffer temp(temp_bytes);
    kernels::segmented_moments_sum(temp.data(), temp_bytes, d_blocks.as<moments>(), d_offsets.as<std::int64_t>(),
                                   n, d_sums.as<moments>(), s.value());

    pinned_buffer h_sums(sizeof(moments) * static_cast<std::size_t>(n));
    MCPRICE_CUDA_TRY(cudaMemcpyAsync(h_sums.as<moments>(), d_sums.data(), d_sums.size(), cudaMemcpyDeviceToHost,
                                     s.value()));
    s.synchronize();  // the batch's results are needed on the host before its buffers go
    std::memcpy(out.data() + first, h_sums.as<moments>(), d_sums.size());
  }

  int device_;
  int grid_blocks_;
  std::string name_;
};

}  // namespace

std::unique_ptr<pricing_backend> make_gpu_backend(int device, int grid_blocks)
{
  return std::make_unique<gpu_backend>(device, grid_blocks);
}

}  // namespace mcprice::detail
