#include "backends/cpu/cpu_calibration.hpp"

#include "backends/family_run.hpp"

#include "mcprice/kernels/exercise/regression_solve.hpp"
#include "mcprice/kernels/rng/host_normal_stream.hpp"
#include "runtime/parallel_for.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>

namespace mcprice::detail {
namespace {

template <typename Real>
class cpu_calibration final : public basic_calibration_executor<Real> {
 public:
  cpu_calibration(const basic_exercise_family<Real>& f, const exercise_table_layout& l, const calibration_plan& plan,
                  const run_control& control, const basic_vol_pair<Real>* surfaces)
      : f_(f),
        layout_(l),
        surfaces_(surfaces),
        cancel_(control.cancel),
        tables_(pack_tables<Real>(f, {}, l)),
        block_sums_(static_cast<std::size_t>(f.calibration_blocks)),
        continuation_(f.trades.size(), 0.0)
  {
    std::size_t need = 0;
    for (auto const& job : plan.jobs) need = std::max(need, calibration_floats(job));
    clear_paths(need);
    for (auto const& t : f.trades) starts_.push_back(t.first_calibration_block);
  }

  void simulate(const calibration_job& job) override
  {
    basic_calibration_view<Real> const v = view(job);
    basic_exercise_tables<Real> const tab = tables();
    for_blocks(job, [&](const basic_exercise_trade<Real>& t, std::int64_t b) {
      with_sized_trade(t, [&](const auto& sized) {
        for (int lane = 0; lane < calibration_paths_per_block; ++lane) {
          simulate_calibration_path<rng::host_normal_stream>(sized, tab, v, b - t.first_calibration_block, b, lane);
        }
      });
    });
  }

  void backward(const calibration_job& job, int from_step, int step) override
  {
    basic_calibration_view<Real> const v = view(job);
    basic_exercise_tables<Real> const tab = tables();
    for_blocks(job, [&](const basic_exercise_trade<Real>& t, std::int64_t b) {
      regression_sums m{};
      with_sized_trade(t, [&](const auto& sized) {
        for (int lane = 0; lane < calibration_paths_per_block; ++lane) {
          backward_calibration_path(sized, tab, v, b - t.first_calibration_block, b, lane, from_step, step, m);
        }
      });
      block_sums_[static_cast<std::size_t>(b)] = m;
    });
  }

  // Each trade's blocks added in block order, as the GPU's totals.
  void regress(int step) override
  {
    for (std::size_t i = 0; i < f_.trades.size(); ++i) {
      regression_sums s{};
      std::int64_t const end = i + 1 < f_.trades.size() ? starts_[i + 1] : f_.calibration_blocks;
      for (std::int64_t b = starts_[i]; b < end; ++b) s += block_sums_[static_cast<std::size_t>(b)];
      store_regression(f_.trades[i], step, s, coefficients(), &continuation_[i]);
    }
  }

  void collect(std::vector<Real>& coefficients, std::vector<double>& continuation_today) override
  {
    std::memcpy(coefficients.data(), tables_.data() + layout_.coefficients, sizeof(Real) * coefficients.size());
    continuation_today = continuation_;
  }

 private:
  static std::size_t calibration_floats(const calibration_job& job)
  {
    return static_cast<std::size_t>(job.end_float - job.first_float) +
           static_cast<std::size_t>(job.end_block - job.first_block) * calibration_paths_per_block;
  }

  basic_calibration_view<Real> view(const calibration_job& job)
  {
    auto const path_floats = static_cast<std::size_t>(job.end_float - job.first_float);
    return {paths_.get(), paths_.get() + path_floats, job.first_block, job.first_float};
  }

  [[nodiscard]] bool cancelled() const noexcept
  {
    return cancel_ != nullptr && cancel_->load(std::memory_order_relaxed);
  }
  [[nodiscard]] basic_exercise_tables<Real> tables() const { return tables_at(tables_.data(), layout_, surfaces_); }
  // The table's coefficient rows (256-byte aligned within the table).
  Real* coefficients() { return reinterpret_cast<Real*>(tables_.data() + layout_.coefficients); }

  // The paths' buffer, zeroed in pieces over a few threads: a large book's is gigabytes, whose
  // first touch alone took tens of seconds on a small machine, so a stop is looked at between
  // pieces (calibrate then returns cancelled before simulating).
  void clear_paths(std::size_t floats)
  {
    paths_.reset(new Real[floats]);
    std::size_t constexpr piece = std::size_t{1} << 22;  // 16 MiB
    parallel_for((floats + piece - 1) / piece,
                 [&](std::size_t k) {
                   if (cancelled()) return;
                   std::size_t const first = k * piece;
                   std::fill(paths_.get() + first, paths_.get() + std::min(floats, first + piece), Real(0));
                 },
                 1);
  }

  // f(trade, family block) for the job's blocks, over a few threads. Once the run is cancelled
  // the blocks left are skipped: calibrate sees the flag after the call and the family's trades
  // come back cancelled, so what the skipped blocks leave is never used.
  template <typename F>
  void for_blocks(const calibration_job& job, F&& f) const
  {
    auto const n = static_cast<std::size_t>(job.end_block - job.first_block);
    parallel_for(
        n,
        [&](std::size_t k) {
          if (cancelled()) return;
          std::int64_t const b = job.first_block + static_cast<std::int64_t>(k);
          auto const it = std::upper_bound(starts_.begin(), starts_.end(), b);
          f(f_.trades[static_cast<std::size_t>(it - starts_.begin() - 1)], b);
        },
        1);
  }

  const basic_exercise_family<Real>& f_;
  exercise_table_layout layout_;
  const basic_vol_pair<Real>* surfaces_;
  const std::atomic<bool>* cancel_;  // the run's stop flag (run_control::cancel), or null
  std::vector<unsigned char> tables_;
  std::vector<regression_sums> block_sums_;
  std::unique_ptr<Real[]> paths_;  // the job's paths, then its cash flows
  std::vector<std::int64_t> starts_;
  std::vector<double> continuation_;
};

}  // namespace

template <typename Real>
std::unique_ptr<basic_calibration_executor<Real>> make_cpu_calibration(const basic_exercise_family<Real>& f,
                                                                       const exercise_table_layout& l,
                                                                       const calibration_plan& plan,
                                                                       const run_control& control,
                                                                       const basic_vol_pair<Real>* surfaces)
{
  return std::make_unique<cpu_calibration<Real>>(f, l, plan, control, surfaces);
}

template std::unique_ptr<calibration_executor> make_cpu_calibration(const exercise_family&,
                                                                    const exercise_table_layout&,
                                                                    const calibration_plan&, const run_control&,
                                                                    const basic_vol_pair<float>*);
template std::unique_ptr<basic_calibration_executor<double>> make_cpu_calibration(
    const basic_exercise_family<double>&, const exercise_table_layout&, const calibration_plan&, const run_control&,
    const basic_vol_pair<double>*);

}  // namespace mcprice::detail
