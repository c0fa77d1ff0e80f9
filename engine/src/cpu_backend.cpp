#include "mcprice/kernels/host_normal_stream.hpp"
#include "pricing_backend.hpp"
#include "work_plan.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <future>
#include <thread>

namespace mcprice::detail {
namespace {

moments cpu_block(const european_gbm_trade& t, std::int64_t block_in_trade)
{
  moments m{};
  for (int lane = 0; lane < layout::lanes_per_block; ++lane) {
    m = m + european_lane<rng::host_normal_stream>(t, block_in_trade, lane);
  }
  return m;
}

// Threads take whole segments; each segment is summed block by block in order, so the result
// does not depend on which thread did what.
class cpu_backend final : public pricing_backend {
 public:
  explicit cpu_backend(unsigned threads)
      : threads_(threads != 0 ? threads : std::max(1U, std::thread::hardware_concurrency())),
        name_("CPU, " + std::to_string(threads_) + " threads")
  {
  }

  european_run run_european(const std::vector<european_gbm_trade>& trades, std::int64_t total_blocks,
                            const progress_callback& progress) const override
  {
    segment_plan const plan = plan_segments(trades, total_blocks);
    std::vector<moments> sums(plan.segments.size());
    std::atomic<std::size_t> next{0};
    std::atomic<std::int64_t> done{0};
    auto worker = [&] {
      for (std::size_t s = next.fetch_add(1); s < plan.segments.size(); s = next.fetch_add(1)) {
        const segment& seg = plan.segments[s];
        const european_gbm_trade& t = trades[seg.trade];
        moments m{};
        for (std::int64_t b = seg.first_block; b < seg.first_block + seg.blocks; ++b) m = m + cpu_block(t, b - t.first_block);
        sums[s] = m;
        done.fetch_add(seg.blocks);
      }
    };
    std::vector<std::future<void>> workers;
    for (unsigned i = 0; i < threads_; ++i) workers.push_back(std::async(std::launch::async, worker));
    report_until_done(workers, done, total_blocks, trades, progress);

    auto const totals = combine_segments(plan, sums, trades.size());
    european_run run;
    run.outcomes.resize(trades.size());
    for (std::size_t i = 0; i < trades.size(); ++i) run.outcomes[i].sums = totals[i];
    return run;
  }

  [[nodiscard]] backend_kind kind() const noexcept override { return backend_kind::cpu; }
  [[nodiscard]] const std::string& name() const noexcept override { return name_; }

 private:
  static void report_until_done(std::vector<std::future<void>>& workers, const std::atomic<std::int64_t>& done,
                                std::int64_t total_blocks, const std::vector<european_gbm_trade>& trades,
                                const progress_callback& progress)
  {
    std::int64_t total = 0;
    for (auto const& t : trades) total += t.samples;
    for (auto& w : workers) {
      while (w.wait_for(std::chrono::milliseconds(200)) != std::future_status::ready) {
        if (progress) progress(total * done.load() / std::max<std::int64_t>(1, total_blocks), total);
      }
      w.get();  // rethrows a worker's exception
    }
    if (progress) progress(total, total);
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
