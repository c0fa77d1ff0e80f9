#include "backends/gpu/gpu_calibration.hpp"
#include "backends/gpu/gpu_context.hpp"
#include "mcprice/kernels/launch/basket_greeks_launcher.hpp"
#include "mcprice/kernels/launch/basket_launcher.hpp"
#include "mcprice/kernels/launch/basket_two_phase.hpp"
#include "mcprice/kernels/launch/early_exercise_launcher.hpp"
#include "mcprice/kernels/launch/european_greeks_launcher.hpp"
#include "mcprice/kernels/launch/european_launcher.hpp"
#include "mcprice/kernels/launch/european_two_phase.hpp"
#include "mcprice/kernels/launch/heston_greeks_launcher.hpp"
#include "mcprice/kernels/launch/heston_launcher.hpp"
#include "mcprice/kernels/launch/heston_two_phase.hpp"
#include "mcprice/kernels/launch/path_greeks_launcher.hpp"
#include "mcprice/kernels/launch/path_launcher.hpp"
#include "mcprice/kernels/launch/path_two_phase.hpp"
#include "mcprice/memory/cuda_error.hpp"
#include "mcprice/memory/device_info.hpp"
#include "mcprice/memory/event.hpp"
#include "mcprice/memory/memory_errors.hpp"
#include "mcprice/memory/persistent_arena.hpp"
#include "mcprice/memory/scratch_lease.hpp"
#include "mcprice/memory/stream.hpp"
#include "backends/gpu/nvtx_range.hpp"
#include "backends/pricing_backend.hpp"
#include "planning/work_plan.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <future>
#include <mutex>
#include <optional>
#include <thread>
#include <type_traits>

namespace mcprice::detail {
namespace {

// Without a cap a job still stops at this many blocks (8 partials of 16 bytes each: 64 MiB).
constexpr std::int64_t max_blocks_per_job = std::int64_t{1} << 19;

std::size_t round256(std::size_t b) { return scratch_lease::charged(b); }

std::size_t cub_temp_bytes(std::size_t segments)
{
  std::size_t temp = 0;
  kernels::segmented_moments_sum(nullptr, temp, nullptr, nullptr, 0, static_cast<int>(segments), nullptr, nullptr);
  return temp;
}

// What follows a request's extra tables in the same upload: the early-exercise coefficients,
// calibrated after the rest of the tables were packed.
struct extra_tail {
  const void* data{nullptr};
  std::size_t bytes{0};
};

// How a family's Greek sums (European channels, or path Greeks) are summed per segment.
struct greek_sums_kind {
  std::size_t bytes;  // one partial, or one segment's sum
  void (*sum)(void* temp, std::size_t& temp_bytes, const void* partials, const std::int64_t* offsets, std::int64_t base,
              int segments, void* out, cudaStream_t stream);

  [[nodiscard]] std::size_t temp_bytes(std::size_t segments) const
  {
    std::size_t temp = 0;
    sum(nullptr, temp, nullptr, nullptr, 0, static_cast<int>(segments), nullptr, nullptr);
    return temp;
  }
};

template <typename Sums,
          void (*Sum)(void*, std::size_t&, const Sums*, const std::int64_t*, std::int64_t, int, Sums*, cudaStream_t)>
constexpr greek_sums_kind greek_sums_of()
{
  return {sizeof(Sums), [](void* temp, std::size_t& temp_bytes, const void* partials, const std::int64_t* offsets,
                           std::int64_t base, int segments, void* out, cudaStream_t stream) {
            Sum(temp, temp_bytes, static_cast<const Sums*>(partials), offsets, base, segments, static_cast<Sums*>(out),
                stream);
          }};
}

constexpr greek_sums_kind european_greek_sums = greek_sums_of<greek_moments, kernels::segmented_greek_sum>();
constexpr greek_sums_kind path_greek_sums = greek_sums_of<path_greek_moments, kernels::segmented_path_greek_sum>();
constexpr greek_sums_kind basket_greek_sums =
    greek_sums_of<basket_greek_moments, kernels::segmented_basket_greek_sum>();

void keep_greeks(european_outcome& o, const greek_moments& g) { o.greek_sums().greeks = g; }
void keep_greeks(european_outcome& o, const path_greek_moments& g) { o.greek_sums().path_greeks = g; }
void keep_greeks(european_outcome& o, const basket_greek_moments& g)
{
  o.greek_sums().basket_greeks.assign(std::begin(g.m), std::end(g.m));
}

// A traced job's device events: recorded before its first kernel and after its last copy.
struct job_trace {
  int job{0};
  event start{event::timing::enabled};
  event end{event::timing::enabled};
};

// A traced call's device clock: an event recorded on an idle stream, and the host second then.
struct device_clock {
  event origin{event::timing::enabled};
  double host_seconds{0.0};
};

// A family's place in a pipelined call's submission order (run_control::wait_turn and
// submitted): taken before its first GPU operation, given up once its jobs are queued, and in
// any case on the way out, so a failing family never holds up the chunks behind it.
class submission_turn {
 public:
  explicit submission_turn(const run_control& c) : control_(c) {}
  submission_turn(const submission_turn&) = delete;
  submission_turn& operator=(const submission_turn&) = delete;
  ~submission_turn() { give_up(); }
  void take()
  {
    if (control_.wait_turn) control_.wait_turn();
  }
  void give_up() noexcept
  {
    if (done_) return;
    done_ = true;
    if (control_.submitted) control_.submitted();
  }

 private:
  const run_control& control_;
  bool done_{false};
};

// A request in flight: its plan and its request-lifetime buffers on both sides.
struct request_state {
  segment_plan plan;
  job_split split;
  const void* d_trades{nullptr};
  const void* d_extra{nullptr};  // a family's second table (path steps; basket assets and factors)
  const std::int64_t* d_offsets{nullptr};
  moments* h_sums{nullptr};
  const greek_sums_kind* greeks{nullptr};  // requests with Greeks: what their sums are
  unsigned char* h_greeks{nullptr};        // and their segment sums
  int n_trades{0};
  order_token uploaded{0};
  std::vector<job_trace>* traces{nullptr};  // traced calls only
};

// The kernels of a job: (request, blocks [first, end), block moments out, block Greek sums out
// (requests with Greeks), the job's lease, stream).
using job_kernels =
    std::function<void(const request_state&, std::int64_t, std::int64_t, moments*, void*, scratch_lease&, stream_view)>;

class gpu_backend final : public pricing_backend {
 public:
  gpu_backend(const engine_options& o, const market_data& market, std::vector<std::string>& notices)
      : grid_blocks_(o.grid_blocks),
        job_cap_(o.job_cap_bytes),
        shared_greek_walks_(o.shared_greek_walks),
        calibration_one_launch_(o.calibration_one_launch),
        two_phase_(o.route == kernel_route::two_phase),
        name_(query_device(o.device).name),
        ctx_(o, market, notices)
  {
  }

  family_run run_european(const std::vector<european_gbm_trade>& trades, std::int64_t total_blocks,
                          const run_control& control) const override
  {
    std::size_t const per_block =
        two_phase_ ? sizeof(float) *
                         static_cast<std::size_t>(kernels::path_floats_per_block + kernels::payoff_floats_per_block)
                   : 0;
    auto launch_kernels = [this](const request_state& r, std::int64_t first, std::int64_t end, moments* d_blocks, void*,
                                 scratch_lease& lease, stream_view s) {
      auto const* d_trades = static_cast<const european_gbm_trade*>(r.d_trades);
      if (!two_phase_) {
        kernels::launch_european_blocks(d_trades, r.n_trades, first, end, d_blocks, grid_blocks_, s.value());
        return;
      }
      auto const blocks = static_cast<std::size_t>(end - first);
      auto* const paths = lease.allocate_n<float>(blocks * kernels::path_floats_per_block);
      auto* const payoffs = lease.allocate_n<float>(blocks * kernels::payoff_floats_per_block);
      kernels::launch_european_paths(d_trades, r.n_trades, first, end, paths, grid_blocks_, s.value());
      kernels::launch_european_payoffs(d_trades, r.n_trades, first, end, paths, payoffs, s.value());
      kernels::launch_payoff_blocks(d_trades, r.n_trades, first, end, payoffs, d_blocks, grid_blocks_, s.value());
    };
    return run_family(trades, nullptr, 0, total_blocks, per_block, control, launch_kernels);
  }

  // Greeks take the fused kernel (the two-phase route stores spots, not the normals the
  // Greek channels need; the engine refuses that combination).
  family_run run_european_greeks(const std::vector<european_gbm_trade>& trades, std::int64_t total_blocks,
                                 const run_control& control) const override
  {
    auto launch_kernels = [this](const request_state& r, std::int64_t first, std::int64_t end, moments* d_blocks,
                                 void* d_greeks, scratch_lease&, stream_view s) {
      kernels::launch_european_greek_blocks(static_cast<const european_gbm_trade*>(r.d_trades), r.n_trades, first, end,
                                            d_blocks, static_cast<greek_moments*>(d_greeks), grid_blocks_, s.value());
    };
    return run_family<greek_moments>(trades, nullptr, 0, total_blocks, 0, control, launch_kernels,
                                     &european_greek_sums);
  }

  // Path Greeks on the fused route; the Greek grid travels after the path grid.
  family_run run_path_greeks(const std::vector<path_gbm_trade>& trades, const std::vector<path_step>& grid,
                             const std::vector<path_greek_step>& greek_grid, std::int64_t total_blocks,
                             bool scenario_lanes, const run_control& control) const override
  {
    std::size_t const greek_offset = round256(sizeof(path_step) * grid.size());
    std::vector<unsigned char> tables(greek_offset + sizeof(path_greek_step) * greek_grid.size());
    if (!grid.empty()) std::memcpy(tables.data(), grid.data(), sizeof(path_step) * grid.size());
    if (!greek_grid.empty()) {
      std::memcpy(tables.data() + greek_offset, greek_grid.data(), sizeof(path_greek_step) * greek_grid.size());
    }
    auto launch_kernels = [this, greek_offset, scenario_lanes](const request_state& r, std::int64_t first,
                                                               std::int64_t end, moments* d_blocks, void* d_greeks,
                                                               scratch_lease&, stream_view s) {
      auto const* base = static_cast<const unsigned char*>(r.d_extra);
      kernels::launch_path_greek_blocks(
          static_cast<const path_gbm_trade*>(r.d_trades), r.n_trades, reinterpret_cast<const path_step*>(base),
          reinterpret_cast<const path_greek_step*>(base + greek_offset), first, end, d_blocks,
          static_cast<path_greek_moments*>(d_greeks), scenario_lanes, grid_blocks_, s.value());
    };
    return run_family<path_greek_moments>(trades, tables.data(), tables.size(), total_blocks, 0, control,
                                          launch_kernels, &path_greek_sums);
  }

  family_run run_path(const std::vector<path_gbm_trade>& trades, const std::vector<path_step>& grid,
                      std::int64_t total_blocks, const run_control& control) const override
  {
    return run_paths(trades, grid, total_blocks, control);
  }

  family_run run_path(const std::vector<path_gbm_trade_f64>& trades, const std::vector<path_step_f64>& grid,
                      std::int64_t total_blocks, const run_control& control) const override
  {
    return run_paths(trades, grid, total_blocks, control);
  }

  family_run run_heston(const std::vector<heston_trade>& trades, const std::vector<heston_step>& steps,
                        std::int64_t total_blocks, const run_control& control) const override
  {
    return run_hestons(trades, steps, total_blocks, control);
  }

  family_run run_heston(const std::vector<heston_trade_f64>& trades, const std::vector<heston_step_f64>& steps,
                        std::int64_t total_blocks, const run_control& control) const override
  {
    return run_hestons(trades, steps, total_blocks, control);
  }

  family_run run_heston_greeks(const std::vector<heston_trade>& trades, const std::vector<heston_step>& steps,
                               std::int64_t total_blocks, const run_control& control) const override
  {
    auto launch_kernels = [this](const request_state& r, std::int64_t first, std::int64_t end, moments* d_blocks,
                                 void* d_greeks, scratch_lease&, stream_view s) {
      kernels::launch_heston_greek_blocks(static_cast<const heston_trade*>(r.d_trades), r.n_trades,
                                          static_cast<const heston_step*>(r.d_extra), first, end, d_blocks,
                                          static_cast<path_greek_moments*>(d_greeks), grid_blocks_, s.value());
    };
    return run_family<path_greek_moments>(trades, steps.data(), sizeof(heston_step) * steps.size(), total_blocks, 0,
                                          control, launch_kernels, &path_greek_sums);
  }

  family_run run_basket(const std::vector<basket_gbm_trade>& trades, const std::vector<basket_asset>& assets,
                        const std::vector<float>& factors, std::int64_t total_blocks,
                        const run_control& control) const override
  {
    return run_baskets(trades, assets, factors, total_blocks, control);
  }

  family_run run_basket(const std::vector<basket_gbm_trade_f64>& trades, const std::vector<basket_asset_f64>& assets,
                        const std::vector<double>& factors, std::int64_t total_blocks,
                        const run_control& control) const override
  {
    return run_baskets(trades, assets, factors, total_blocks, control);
  }

  family_run run_basket_greeks(const std::vector<basket_gbm_trade>& trades, const std::vector<basket_asset>& assets,
                               const std::vector<float>& factors, std::int64_t total_blocks,
                               const run_control& control) const override
  {
    std::size_t const factor_offset = round256(sizeof(basket_asset) * assets.size());
    auto const tables = basket_tables(assets, factors, factor_offset);
    auto launch_kernels = [this, factor_offset](const request_state& r, std::int64_t first, std::int64_t end,
                                                moments* d_blocks, void* d_greeks, scratch_lease&, stream_view s) {
      auto const* base = static_cast<const unsigned char*>(r.d_extra);
      kernels::launch_basket_greek_blocks(static_cast<const basket_gbm_trade*>(r.d_trades), r.n_trades,
                                          reinterpret_cast<const basket_asset*>(base),
                                          reinterpret_cast<const float*>(base + factor_offset), first, end, d_blocks,
                                          static_cast<basket_greek_moments*>(d_greeks), grid_blocks_, s.value());
    };
    return run_family<basket_greek_moments>(trades, tables.data(), tables.size(), total_blocks, 0, control,
                                            launch_kernels, &basket_greek_sums);
  }

  // The calibration runs step by step on one stream (each step's coefficients wait for the
  // last step's sums); the pricing paths then go as any family's jobs, the coefficient table in
  // their tables.
  family_run run_early_exercise(const exercise_family& trades,
                                const std::function<const packed_exercise_family*()>& with_greeks,
                                const run_control& control) const override
  {
    MCPRICE_CUDA_TRY(cudaSetDevice(ctx_.device()));
    calibration_plan const plan = plan_calibration(trades.trades, trades.calibration_blocks, job_cap_);
    calibration c;
    std::string failure;
    try {
      nvtx_range const phase("calibration");
      double const setup_from = control.timeline != nullptr ? control.timeline->now() : 0.0;
      auto executor = make_gpu_calibration(ctx_, trades, layout_of(trades), job_cap_, grid_blocks_, plan.resident,
                                           calibration_one_launch_);
      double const steps_from = control.timeline != nullptr ? control.timeline->now() : 0.0;
      c = calibrate(trades, plan, *executor, control);
      if (control.timeline != nullptr) {
        // Host spans: the tables' upload, then the steps queued and their results waited for.
        control.timeline->add({"calib setup", control.chunk, 0, setup_from, steps_from, false});
        control.timeline->add({"calibration", control.chunk, 0, steps_from, control.timeline->now(), false});
      }
    } catch (const out_of_memory& e) {
      failure = std::string("calibration: ") + e.what();
    } catch (const scratch_cap_exceeded& e) {
      failure = std::string("calibration: ") + e.what();
    }
    family_run run;
    if (failure.empty()) {
      // The pricing paths read the trades' own tables alone (not the Greeks' scenarios).
      auto price_paths = [&] {
        auto const l = layout_of(trades);
        auto const tables = pack_tables(trades, c.coefficients, l);
        auto launch_kernels = [this, l](const request_state& r, std::int64_t first, std::int64_t end, moments* d_blocks,
                                        void*, scratch_lease&, stream_view s) {
          kernels::launch_exercise_price_blocks(static_cast<const exercise_trade*>(r.d_trades), r.n_trades,
                                                tables_at(r.d_extra, l), first, end, d_blocks, grid_blocks_, s.value());
        };
        return run_family(trades.trades, tables.data(), tables.size(), trades.blocks, 0, control, launch_kernels);
      };
      // The Greeks' scenarios were built and packed on the host while the GPU calibrated.
      const packed_exercise_family* const greeks = with_greeks();
      if (greeks == nullptr || greeks->f.combinations.empty()) {
        run = price_paths();
      } else {
        // The pricing paths on a thread of their own, beside the Greek combinations: a few
        // trades' paths leave most of the GPU idle, so their kernel runs within the Greeks'
        // rather than before it (the future's destructor waits for it if the Greeks throw).
        auto priced = std::async(std::launch::async, price_paths);
        const exercise_family& f = greeks->f;
        exercise_table_layout const l = greeks->layout;
        std::uint32_t const asset_counts = combination_asset_counts(f);
        auto launch_combinations = [this, l, asset_counts](const request_state& r, std::int64_t first, std::int64_t end,
                                                           moments* d_blocks, void*, scratch_lease& lease,
                                                           stream_view s) {
          kernels::launch_exercise_combination_blocks(
              static_cast<const exercise_combination*>(r.d_trades), r.n_trades, tables_at(r.d_extra, l), first, end,
              d_blocks, asset_counts, lease.allocate_n<unsigned long long>(kernels::combination_kernels), grid_blocks_,
              s.value());
        };
        // Each job's scratch holds its kernel's unit counter. One job where the cap allows: the
        // units differ in cost by up to a walk of eight legs, and the jobs' kernels, each filling
        // the GPU, ran one after another, each ending on its slowest units; there is no upload
        // or copy back to overlap with.
        run_control one_job = control;
        one_job.max_jobs = 1;
        auto combinations =
            run_family(shared_greek_walks_ ? f.combinations : each_leg_alone(f.combinations), greeks->tables.data(),
                       l.coefficients, f.combination_blocks, 0, one_job, launch_combinations, nullptr,
                       sizeof(unsigned long long) * kernels::combination_kernels,
                       {c.coefficients.data(), sizeof(float) * c.coefficients.size()})
                .outcomes;
        run = priced.get();
        run.combinations = std::move(combinations);
      }
    } else {
      run.outcomes.resize(trades.trades.size());
    }
    for (std::size_t i = 0; i < trades.trades.size(); ++i) {
      auto& o = run.outcomes[i];
      o.continuation_today = c.continuation_today.empty() ? 0.0 : c.continuation_today[i];
      if (!failure.empty()) o.error = failure;
      if (c.cancelled) o.cancelled = true;
    }
    for (std::size_t t : plan.trades_too_large) {
      run.outcomes[t].error = "--job-cap " + std::to_string(job_cap_) + " bytes is smaller than the " +
                              std::to_string(plan.smallest_need) + " bytes one calibration block of this trade needs";
    }
    return run;
  }

  [[nodiscard]] backend_kind kind() const noexcept override { return backend_kind::gpu; }
  [[nodiscard]] const std::string& name() const noexcept override { return name_; }
  [[nodiscard]] std::optional<memory_report> memory() const override { return ctx_.report(); }
  void trim_memory() const override { ctx_.trim(); }

 private:
  // The asset table and the factor table as one upload: assets, then factors from factor_offset.
  template <typename Asset, typename Real>
  static std::vector<unsigned char> basket_tables(const std::vector<Asset>& assets, const std::vector<Real>& factors,
                                                  std::size_t factor_offset)
  {
    std::vector<unsigned char> tables(factor_offset + sizeof(Real) * factors.size());
    if (!assets.empty()) std::memcpy(tables.data(), assets.data(), sizeof(Asset) * assets.size());
    if (!factors.empty()) std::memcpy(tables.data() + factor_offset, factors.data(), sizeof(Real) * factors.size());
    return tables;
  }

  // Two-phase scratch of the one-sample-per-lane families (path, Heston, multi-asset), in the
  // path precision Real: `rows` values a lane of path scratch, sized for the request's longest
  // sample, then one payoff a lane.
  template <typename Real>
  struct two_phase_scratch {
    Real* paths;
    Real* payoffs;
  };

  template <typename Trade, typename RowsOf>
  static int max_rows(const std::vector<Trade>& trades, RowsOf rows_of)
  {
    int rows = 0;
    for (auto const& t : trades) rows = std::max(rows, rows_of(t));
    return rows;
  }

  template <typename Real>
  [[nodiscard]] std::size_t two_phase_bytes_per_block(int rows) const
  {
    auto const lanes = static_cast<std::size_t>(kernels::path_samples_per_block);
    return two_phase_ ? sizeof(Real) * lanes * (static_cast<std::size_t>(rows) + 1) : 0;
  }

  template <typename Real>
  static two_phase_scratch<Real> lease_two_phase(scratch_lease& lease, std::int64_t first, std::int64_t end, int rows)
  {
    auto const values =
        static_cast<std::size_t>(end - first) * static_cast<std::size_t>(kernels::path_samples_per_block);
    Real* const paths = lease.allocate_n<Real>(values * static_cast<std::size_t>(rows));
    return {paths, lease.allocate_n<Real>(values)};
  }

  // Path-dependent trades in either path precision (Real).
  template <typename Real>
  family_run run_paths(const std::vector<basic_path_gbm_trade<Real>>& trades,
                       const std::vector<basic_path_step<Real>>& grid, std::int64_t total_blocks,
                       const run_control& control) const
  {
    int const rows = max_rows(trades, [](const auto& t) { return kernels::path_rows_per_sample(t); });
    auto launch_kernels = [this, rows](const request_state& r, std::int64_t first, std::int64_t end, moments* d_blocks,
                                       void*, scratch_lease& lease, stream_view s) {
      auto const* d_trades = static_cast<const basic_path_gbm_trade<Real>*>(r.d_trades);
      auto const* d_grid = static_cast<const basic_path_step<Real>*>(r.d_extra);
      if (!two_phase_) {
        kernels::launch_path_blocks(d_trades, r.n_trades, d_grid, first, end, d_blocks, grid_blocks_, s.value());
        return;
      }
      auto const x = lease_two_phase<Real>(lease, first, end, rows);
      kernels::launch_path_observations(d_trades, r.n_trades, d_grid, first, end, x.paths, rows, grid_blocks_,
                                        s.value());
      kernels::launch_path_payoffs(d_trades, r.n_trades, d_grid, first, end, x.paths, rows, x.payoffs, grid_blocks_,
                                   s.value());
      kernels::launch_path_sample_blocks(d_trades, r.n_trades, first, end, x.payoffs, d_blocks, grid_blocks_,
                                         s.value());
    };
    return run_family(trades, grid.data(), sizeof(grid[0]) * grid.size(), total_blocks,
                      two_phase_bytes_per_block<Real>(rows), control, launch_kernels);
  }

  template <typename Real>
  family_run run_hestons(const std::vector<basic_heston_trade<Real>>& trades,
                         const std::vector<basic_heston_step<Real>>& steps, std::int64_t total_blocks,
                         const run_control& control) const
  {
    int const rows = max_rows(trades, [](const auto& t) { return kernels::heston_rows_per_sample(t); });
    bool const europeans_only = std::all_of(trades.begin(), trades.end(), [](const basic_heston_trade<Real>& t) {
      return t.product == path_product::european;
    });
    auto launch_kernels = [this, rows, europeans_only](const request_state& r, std::int64_t first, std::int64_t end,
                                                       moments* d_blocks, void*, scratch_lease& lease, stream_view s) {
      auto const* d_trades = static_cast<const basic_heston_trade<Real>*>(r.d_trades);
      auto const* d_steps = static_cast<const basic_heston_step<Real>*>(r.d_extra);
      if (!two_phase_) {
        kernels::launch_heston_blocks(d_trades, r.n_trades, d_steps, first, end, d_blocks, europeans_only, grid_blocks_,
                                      s.value());
        return;
      }
      auto const x = lease_two_phase<Real>(lease, first, end, rows);
      kernels::launch_heston_observations(d_trades, r.n_trades, d_steps, first, end, x.paths, rows, grid_blocks_,
                                          s.value());
      kernels::launch_heston_payoffs(d_trades, r.n_trades, d_steps, first, end, x.paths, rows, x.payoffs, grid_blocks_,
                                     s.value());
      kernels::launch_heston_sample_blocks(d_trades, r.n_trades, first, end, x.payoffs, d_blocks, grid_blocks_,
                                           s.value());
    };
    return run_family(trades, steps.data(), sizeof(steps[0]) * steps.size(), total_blocks,
                      two_phase_bytes_per_block<Real>(rows), control, launch_kernels);
  }

  // Multi-asset trades in either path precision. The asset table and the factor table travel as
  // one upload: assets, then factors from an aligned offset.
  template <typename Real>
  family_run run_baskets(const std::vector<basic_basket_gbm_trade<Real>>& trades,
                         const std::vector<basic_basket_asset<Real>>& assets, const std::vector<Real>& factors,
                         std::int64_t total_blocks, const run_control& control) const
  {
    std::size_t const factor_offset = round256(sizeof(basic_basket_asset<Real>) * assets.size());
    auto const tables = basket_tables(assets, factors, factor_offset);
    int const rows = max_rows(trades, [](const auto& t) { return kernels::basket_rows_per_sample(t); });
    auto launch_kernels = [this, factor_offset, rows](const request_state& r, std::int64_t first, std::int64_t end,
                                                      moments* d_blocks, void*, scratch_lease& lease, stream_view s) {
      auto const* base = static_cast<const unsigned char*>(r.d_extra);
      auto const* d_trades = static_cast<const basic_basket_gbm_trade<Real>*>(r.d_trades);
      auto const* d_assets = reinterpret_cast<const basic_basket_asset<Real>*>(base);
      auto const* d_factors = reinterpret_cast<const Real*>(base + factor_offset);
      if (!two_phase_) {
        kernels::launch_basket_blocks(d_trades, r.n_trades, d_assets, d_factors, first, end, d_blocks, grid_blocks_,
                                      s.value());
        return;
      }
      auto const x = lease_two_phase<Real>(lease, first, end, rows);
      kernels::launch_basket_observations(d_trades, r.n_trades, d_assets, d_factors, first, end, x.paths, rows,
                                          grid_blocks_, s.value());
      kernels::launch_basket_payoffs(d_trades, r.n_trades, d_assets, first, end, x.paths, rows, x.payoffs, grid_blocks_,
                                     s.value());
      kernels::launch_basket_sample_blocks(d_trades, r.n_trades, first, end, x.payoffs, d_blocks, grid_blocks_,
                                           s.value());
    };
    return run_family(trades, tables.data(), tables.size(), total_blocks, two_phase_bytes_per_block<Real>(rows),
                      control, launch_kernels);
  }

  // GreekSums: the family's Greek sums type (void: none), described at run time by `greeks`.
  // The extra tables are `head_bytes` from `extra`, then `tail`'s bytes.
  template <typename GreekSums = void, typename Trade>
  family_run run_family(const std::vector<Trade>& trades, const void* extra, std::size_t head_bytes,
                        std::int64_t total_blocks, std::size_t scratch_per_block, const run_control& control,
                        const job_kernels& kernels, const greek_sums_kind* greeks = nullptr,
                        std::size_t scratch_per_job = 0, const extra_tail& tail = {}) const
  {
    std::size_t const extra_bytes = head_bytes + tail.bytes;
    submission_turn turn(control);
    MCPRICE_CUDA_TRY(cudaSetDevice(ctx_.device()));
    double const submitted_from = control.timeline != nullptr ? control.timeline->now() : 0.0;
    std::vector<job_trace> traces;
    std::shared_ptr<const device_clock> clock;
    request_state r;
    r.n_trades = static_cast<int>(trades.size());
    if (control.timeline != nullptr) {
      r.traces = &traces;
      clock = device_clock_of(*control.timeline);
    }
    {
      nvtx_range const phase("plan");
      r.plan = plan_segments(first_blocks_of(trades), total_blocks);
      r.split = plan_jobs(
          r.plan, plan_cap(), job_size(total_blocks, control.max_jobs), [&](std::int64_t blocks, std::size_t segs) {
            return scratch_need(blocks, segs, greeks) + round256(scratch_per_block * static_cast<std::size_t>(blocks)) +
                   round256(scratch_per_job);
          });
    }
    family_run run;
    run.outcomes.resize(trades.size());
    run.jobs = r.split.jobs.size();
    for (std::size_t t : r.split.trades_too_large) {
      run.outcomes[t].error =
          (plan_cap() == job_cap_ ? "--job-cap " + std::to_string(job_cap_) + " bytes is"
                                  : "three quarters of --pool-limit " + std::to_string(ctx_.pool_limit()) +
                                        " bytes (what one job may take) is") +
          " smaller than the " + std::to_string(r.split.smallest_need) + " bytes one chunk of this trade needs";
    }
    if (r.split.jobs.empty()) return run;

    // Request-lifetime data (trade table, extra table, segment offsets; never the scratch pool)
    // and the pinned staging that also receives the segment sums, both cached across requests.
    std::size_t const n_seg = r.plan.segments.size();
    std::size_t const trade_bytes = sizeof(Trade) * trades.size();
    std::size_t const offset_bytes = sizeof(std::int64_t) * (n_seg + 1);
    auto device_data = ctx_.request_buffers().acquire(arena_view::footprint({trade_bytes, extra_bytes, offset_bytes}));
    std::size_t const greek_bytes = greeks != nullptr ? greeks->bytes * n_seg : 0;
    auto staging =
        ctx_.staging().acquire(trade_bytes + extra_bytes + offset_bytes + sizeof(moments) * n_seg + greek_bytes);
    turn.take();
    upload(trades.data(), trade_bytes, extra, head_bytes, tail, r, device_data.get(), staging.get());
    if (control.timeline != nullptr) {
      control.timeline->add({"plan+upload", control.chunk, 0, submitted_from, control.timeline->now(), false});
    }
    if (greeks != nullptr) {
      r.greeks = greeks;
      r.h_greeks = reinterpret_cast<unsigned char*>(r.h_sums + n_seg);
    }

    // The request's jobs go round up to stream_count streams of the pool (other requests may
    // share them; stream order and events keep every job's inputs and scratch safe).
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
    turn.give_up();
    double const collect_from = control.timeline != nullptr ? control.timeline->now() : 0.0;
    collect(streams, control.spin_wait);
    ctx_.events().release(r.uploaded);
    if (clock) trace_request(*control.timeline, *clock, control.chunk, submitted_from, collect_from, traces);

    // A failed job's segments hold nothing: its trades keep their error and no sums.
    std::vector<moments> sums(r.h_sums, r.h_sums + n_seg);
    auto const totals = combine_segments(r.plan, sums, trades.size());
    for (std::size_t i = 0; i < trades.size(); ++i) {
      if (run.outcomes[i].error.empty() && !run.outcomes[i].cancelled) run.outcomes[i].sums = totals[i];
    }
    if constexpr (!std::is_void_v<GreekSums>) {
      std::vector<GreekSums> segment_greeks(n_seg);
      std::memcpy(segment_greeks.data(), r.h_greeks, sizeof(GreekSums) * n_seg);
      auto const greek_totals = combine_segments(r.plan, segment_greeks, trades.size());
      for (std::size_t i = 0; i < trades.size(); ++i) keep_greeks(run.outcomes[i], greek_totals[i]);
    }
    if (control.progress) {
      std::int64_t total = 0;
      for (auto const& t : trades) total += t.samples;
      control.progress(total, total);
    }
    return run;
  }

  // Marks the trades of a job's segments as failed (a trade split over several jobs fails with
  // the first of them that does).
  static void fail_job(const job_range& job, const segment_plan& plan, const std::string& why, family_run& run)
  {
    for_job_trades(job, plan, run, [&](european_outcome& o) {
      if (o.error.empty()) o.error = why;
    });
  }

  static void cancel_job(const job_range& job, const segment_plan& plan, family_run& run)
  {
    for_job_trades(job, plan, run, [](european_outcome& o) { o.cancelled = true; });
  }

  // f(outcome) for the trade of each of a job's segments.
  template <typename F>
  static void for_job_trades(const job_range& job, const segment_plan& plan, family_run& run, F&& f)
  {
    for (std::size_t seg = job.first_segment; seg < job.end_segment; ++seg) f(run.outcomes[plan.segments[seg].trade]);
  }

  // Enough jobs to keep two per stream in flight (at most max_jobs when given), but never below
  // one segment or above the cap.
  [[nodiscard]] std::int64_t job_size(std::int64_t total_blocks, std::size_t max_jobs) const
  {
    std::int64_t share = (total_blocks + 2 * ctx_.stream_count() - 1) / (2 * ctx_.stream_count());
    if (max_jobs > 0) {
      auto const most = static_cast<std::int64_t>(max_jobs);
      share = std::max(share, (total_blocks + most - 1) / most);
    }
    return std::clamp(share, layout::blocks_per_segment, max_blocks_per_job);
  }

  [[nodiscard]] std::size_t scratch_need(std::int64_t blocks, std::size_t segments, const greek_sums_kind* greeks) const
  {
    auto const b = static_cast<std::size_t>(blocks);
    std::size_t need = round256(sizeof(moments) * layout::partials_per_block * b) +
                       round256(sizeof(moments) * segments) + round256(cub_temp_bytes(segments));
    if (greeks != nullptr) {
      need += round256(greeks->bytes * layout::partials_per_block * b) + round256(greeks->bytes * segments) +
              round256(greeks->temp_bytes(segments));
    }
    return need;
  }

  void upload(const void* trades, std::size_t trade_bytes, const void* extra, std::size_t head_bytes,
              const extra_tail& tail, request_state& r, device_buffer& device_data, pinned_buffer& staging) const
  {
    nvtx_range const phase("upload");
    std::size_t const n_seg = r.plan.segments.size();
    std::size_t const offset_bytes = sizeof(std::int64_t) * (n_seg + 1);
    std::size_t const extra_bytes = head_bytes + tail.bytes;
    char* const host = staging.as<char>();
    std::memcpy(host, trades, trade_bytes);
    if (head_bytes > 0) std::memcpy(host + trade_bytes, extra, head_bytes);
    if (tail.bytes > 0) std::memcpy(host + trade_bytes + head_bytes, tail.data, tail.bytes);
    auto* const h_offsets = reinterpret_cast<std::int64_t*>(host + trade_bytes + extra_bytes);
    for (std::size_t i = 0; i < n_seg; ++i) h_offsets[i] = r.plan.segments[i].first_block;
    h_offsets[n_seg] = r.plan.total_blocks;
    r.h_sums = reinterpret_cast<moments*>(host + trade_bytes + extra_bytes + offset_bytes);

    arena_view arena(device_data.data(), device_data.size());
    void* const d_trades = arena.allocate(trade_bytes);
    void* const d_extra = extra_bytes > 0 ? arena.allocate(extra_bytes) : nullptr;
    auto* const d_offsets = arena.allocate_n<std::int64_t>(n_seg + 1);
    stream_view const u = ctx_.upload_stream();
    ctx_.wait_for_market(u);
    MCPRICE_CUDA_TRY(cudaMemcpyAsync(d_trades, host, trade_bytes, cudaMemcpyHostToDevice, u.value()));
    if (extra_bytes > 0) {
      MCPRICE_CUDA_TRY(cudaMemcpyAsync(d_extra, host + trade_bytes, extra_bytes, cudaMemcpyHostToDevice, u.value()));
    }
    MCPRICE_CUDA_TRY(cudaMemcpyAsync(d_offsets, h_offsets, offset_bytes, cudaMemcpyHostToDevice, u.value()));
    r.uploaded = ctx_.events().record(u);
    r.d_trades = d_trades;
    r.d_extra = d_extra;
    r.d_offsets = d_offsets;
  }

  // Under --pool-limit a job holding scratch may be refused more (scratch_busy): it has given
  // everything back, and comes again admitted for its whole need at once, so it waits holding
  // nothing. Its kernels, if some were queued, wrote only its own scratch (freed behind them in
  // stream order) and the same sums it writes again: the results keep their bits.
  void run_admitted_job(const job_range& job, const request_state& r, stream_view s, int job_no,
                        const job_kernels& kernels) const
  {
    std::size_t need = 0;
    for (;;) {
      try {
        run_job(job, r, s, job_no, kernels, need);
        return;
      } catch (const scratch_busy& e) {
        need = e.needed();
        ctx_.note_job_retry();
      }
    }
  }

  // What one job may need, for the planner: --job-cap, and under --pool-limit three quarters of
  // the limit, so that a job fits the pool alone after its allocations are rounded up to size
  // classes (at most 19% each). A job that large waits until the others have drained.
  [[nodiscard]] std::size_t plan_cap() const noexcept
  {
    std::size_t const share = ctx_.pool_limit() / 4 * 3;
    if (share == 0) return job_cap_;
    return job_cap_ == 0 ? share : std::min(job_cap_, share);
  }

  // One job on stream s: scratch from a capped lease, the family's kernels over the job's
  // blocks, the fixed-order segment sums, their copy to pinned memory; the lease's frees are
  // queued behind all of it. Nothing here waits on the host.
  void run_job(const job_range& job, const request_state& r, stream_view s, int job_no, const job_kernels& kernels,
               std::size_t admit) const
  {
    std::int64_t const first = job.first_block(r.plan);
    std::int64_t const end = job.end_block(r.plan);
    auto const blocks = static_cast<std::size_t>(end - first);
    auto const segs = static_cast<int>(job.end_segment - job.first_segment);
    scratch_lease lease(
        ctx_.scratch(), s, job_cap_, "job " + std::to_string(job_no), [this] { ctx_.note_cap_rejection(); },
        ctx_.gate());
    lease.admit(admit);
    auto* const d_blocks = lease.allocate_n<moments>(blocks * layout::partials_per_block);
    auto* const d_sums = lease.allocate_n<moments>(static_cast<std::size_t>(segs));
    std::size_t temp_bytes = cub_temp_bytes(static_cast<std::size_t>(segs));
    void* const temp = lease.allocate(temp_bytes);
    void* d_greek_blocks = nullptr;
    if (r.greeks != nullptr) d_greek_blocks = lease.allocate(r.greeks->bytes * blocks * layout::partials_per_block);
    std::optional<job_trace> trace;  // kept only once its job is wholly queued (it may yet be retried)
    if (r.traces != nullptr) {
      trace.emplace();
      trace->job = job_no;
      trace->start.record(s);
    }
    kernels(r, first, end, d_blocks, d_greek_blocks, lease, s);
    {
      nvtx_range const phase("reduce");
      kernels::segmented_moments_sum(temp, temp_bytes, d_blocks, r.d_offsets + job.first_segment, first, segs, d_sums,
                                     s.value());
    }
    nvtx_range const phase("copy-back");
    MCPRICE_CUDA_TRY(cudaMemcpyAsync(r.h_sums + job.first_segment, d_sums,
                                     sizeof(moments) * static_cast<std::size_t>(segs), cudaMemcpyDeviceToHost,
                                     s.value()));
    if (d_greek_blocks != nullptr) {
      auto const seg_bytes = r.greeks->bytes * static_cast<std::size_t>(segs);
      void* const d_greek_sums = lease.allocate(seg_bytes);
      std::size_t greek_temp_bytes = r.greeks->temp_bytes(static_cast<std::size_t>(segs));
      void* const greek_temp = lease.allocate(greek_temp_bytes);
      r.greeks->sum(greek_temp, greek_temp_bytes, d_greek_blocks, r.d_offsets + job.first_segment, first, segs,
                    d_greek_sums, s.value());
      MCPRICE_CUDA_TRY(cudaMemcpyAsync(r.h_greeks + r.greeks->bytes * job.first_segment, d_greek_sums, seg_bytes,
                                       cudaMemcpyDeviceToHost, s.value()));
    }
    if (trace) {
      trace->end.record(s);
      r.traces->push_back(std::move(*trace));
    }
  }

  // The traced call's device clock, recorded by its first request on an idle stream of its own
  // (before the call's GPU work, so the event runs as soon as it is recorded).
  std::shared_ptr<const device_clock> device_clock_of(run_timeline& timeline) const
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
  // the device (its events are complete once the request is collected).
  void trace_request(run_timeline& timeline, const device_clock& clock, std::size_t chunk, double submitted_from,
                     double collect_from, const std::vector<job_trace>& traces) const
  {
    timeline.add({"submit", chunk, 0, submitted_from, collect_from, false});
    timeline.add({"collect", chunk, 0, collect_from, timeline.now(), false});
    clock.origin.synchronize();
    for (const job_trace& t : traces) {
      double const begin = clock.host_seconds + 1e-3 * event::elapsed_ms(clock.origin, t.start);
      double const end = clock.host_seconds + 1e-3 * event::elapsed_ms(clock.origin, t.end);
      timeline.add({"job", chunk, static_cast<std::size_t>(t.job), begin, end, true});
    }
  }

  // The request's one host wait: an event after the last copy of each stream it used, polled.
  // A pipelined call has a collector per chunk in flight, and a dozen busy collectors (spinning,
  // as the runtime's own wait does with one context and many cores, or yielding, much the same
  // on Linux) starved the threads preparing chunks and making results for milliseconds: all but
  // the last chunks' collectors sleep 50 us between polls (spin: run_control::spin_wait).
  void collect(const std::vector<stream_view>& used, bool spin) const
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

  int grid_blocks_;
  std::size_t job_cap_;
  bool shared_greek_walks_;
  bool calibration_one_launch_;
  bool two_phase_;
  std::string name_;
  mutable gpu_context ctx_;
  mutable std::once_flag trace_stream_once_;
  mutable std::optional<stream> trace_stream_;  // idle: the traced calls' device clock is recorded there
};

}  // namespace

std::unique_ptr<pricing_backend> make_gpu_backend(const engine_options& options, const market_data& market,
                                                  std::vector<std::string>& notices)
{
  return std::make_unique<gpu_backend>(options, market, notices);
}

}  // namespace mcprice::detail
