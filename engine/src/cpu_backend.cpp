#include "mcprice/kernels/host_normal_stream.hpp"
#include "pricing_backend.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <future>
#include <thread>

namespace mcprice::detail {

std::size_t trade_of_block(const std::vector<european_gbm_trade>& trades, std::int64_t block)
{
  auto const it = std::upper_bound(trades.begin(), trades.end(), block,
                                   [](std::int64_t b, const european_gbm_trade& t) { return b < t.first_block; });
  return static_cast<std::size_t>(it - trades.begin()) - 1;
}

namespace {

moments cpu_block(const european_gbm_trade& t, std::int64_t block_in_trade)
{
  moments m{};
  for (int lane = 0; lane < layout::lanes_per_block; ++lane) {
    m = m + european_lane<rng::host_normal_stream>(t, block_in_trade, lane);
  }
  return m;
}

class cpu_backend final : public pricing_backend {
 public:
  explicit cpu_backend(unsigned threads)
      : threads_(threads != 0 ? threads : std::max(1U, std::thread::hardware_concurrency())),
        name_("CPU, " + std::to_string(threads_) + " threads")
  {
  }

  std::vector<moments> run_european(const std::vector<european_gbm_trade>& trades,
                                    std::int64_t total_blocks,
                                    const progress_callback& progress) const override
  {
    std::vector<moments> blocks(static_cast<std::size_t>(total_blocks));
    std::atomic<std::int64_t> next{0};
    std::atomic<std::int64_t> done{0};
    constexpr std::int64_t chunk = 8;
    auto worker = [&] {
      for (;;) {
        std::int64_t const begin = next.fetch_add(chunk);
        if (begin >= total_blocks) return;
        std::int64_t const end = std::min(total_blocks, begin + chunk);
        for (std::int64_t b = begin; b < end; ++b) {
          const european_gbm_trade& t = trades[trade_of_block(trades, b)];
          blocks[static_cast<std::size_t>(b)] = cpu_block(t, b - t.first_block);
        }
        done.fetch_add(end - begin);
      }
    };
    std::vector<std::future<void>> workers;
    for (unsigned i = 0; i < threads_; ++i) workers.push_back(std::async(std::launch::async, worker));
    report_until_done(workers, done, total_blocks, trades, progress);

    // Fixed order: each trade's blocks summed front to back.
    std::vector<moments> out(trades.size());
    for (std::size_t i = 0; i < trades.size(); ++i) {
      std::int64_t const end = i + 1 < trades.size() ? trades[i + 1].first_block : total_blocks;
      for (std::int64_t b = trades[i].first_block; b < end; ++b) out[i] = out[i] + blocks[static_cast<std::size_t>(b)];
    }
    return out;
  }

  [[nodiscard]] backend_kind kind() const noexcept override { return backend_kind::cpu; }
  [[nodiscard]] const std::string& name() const noexcept override { return name_; }

 private:
  static void report_until_done(std::vector<std::future<void>>& workers, const std::atomic<std::int64_t>& done,
                                std::int64_t total_blocks, const std::vector<european_gbm_trade>& trades,
                                const progress_callback& progress)
  {
    std::int64_t total_paths = 0;
    for (auto const& t : trades) total_paths += t.samples;
    for (auto& w : workers) {
      while (w.wait_for(std::chrono::milliseconds(200)) != std::future_status::ready) {
        if (progress) progress(total_paths * done.load() / std::max<std::int64_t>(1, total_blocks), total_paths);
      }
      w.get();  // rethrows a worker's exception
    }
    if (progress) progress(total_paths, total_paths);
  }

  unsigned threads_;
  std::string name_;
};

}  // namespace

std::unique_ptr<pricing_backend> make_cpu_backend(unsigned threads)
{
  return std::make_unique<cpu_backend>(threads);
}

}  // namespace mcprice::detail
