#include "backends/cpu/cpu_calibration.hpp"
#include "backends/outcome_tallies.hpp"
#include "backends/pricing_backend.hpp"
#include "market/market_surfaces.hpp"
#include "mcprice/kernels/rng/host_normal_stream.hpp"
#include "mcprice/kernels/rng/host_sobol_stream.hpp"

#include "planning/work_plan.hpp"
#include "runtime/parallel_for.hpp"
#include "runtime/thread_cache.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <future>
#include <thread>
#include <variant>

namespace mcprice::detail {
namespace {

// A canonical block on the CPU: its lanes in order (the GPU reduces the same lanes in a tree).
template <typename LaneMoments>
auto over_lanes(LaneMoments lane_moments)
{
  decltype(lane_moments(0)) m{};
  for (int lane = 0; lane < layout::lanes_per_block; ++lane) m = m + lane_moments(lane);
  return m;
}

// Threads take whole segments; each segment is summed block by block in order, so the result
// does not depend on which thread did what.
class cpu_backend final : public pricing_backend {
 public:
  cpu_backend(unsigned threads, rng_kind rng, const market_data& market)
      : surfaces_(market),
        quasi_(rng == rng_kind::sobol),
        threads_(threads != 0 ? threads : std::max(1U, std::thread::hardware_concurrency())),
        name_("CPU, " + std::to_string(threads_) + " threads")
  {
  }

  family_run run(const family_request& request, const run_control& control) const override
  {
    return std::visit(
        [&](const auto* batch) {
          using family = typename std::remove_pointer_t<std::decay_t<decltype(batch)>>::family;
          if (quasi_) {
            using stream = rng::host_sobol_stream<family::sobol_factors, typename family::real>;
            return run_family<stream>(*batch, request.greeks, control);
          }
          return run_family<rng::host_normal_stream>(*batch, request.greeks, control);
        },
        request.batch);
  }

  family_run run_early_exercise(const exercise_family& trades,
                                const std::function<const packed_exercise_family*()>& with_greeks,
                                const run_control& control) const override
  {
    return run_exercise(trades, with_greeks, control);
  }

  family_run run_early_exercise(const basic_exercise_family<double>& trades,
                                const std::function<const basic_packed_exercise_family<double>*()>& with_greeks,
                                const run_control& control) const override
  {
    return run_exercise(trades, with_greeks, control);
  }

  [[nodiscard]] backend_kind kind() const noexcept override { return backend_kind::cpu; }
  [[nodiscard]] const std::string& name() const noexcept override { return name_; }

 private:
  template <typename Real>
  family_run run_exercise(const basic_exercise_family<Real>& trades,
                          const std::function<const basic_packed_exercise_family<Real>*()>& with_greeks,
                          const run_control& control) const
  {
    basic_calibration<Real> const c = calibrated(trades, control);
    const basic_packed_exercise_family<Real>* const greeks = with_greeks();
    return price_calibrated(greeks != nullptr ? greeks->f : trades, c, control);
  }

  // Sobol paths of early exercise: up to two bridged normals an asset a step (Heston).
  template <typename Real>
  using exercise_sobol_stream = rng::host_sobol_stream<2 * max_exercise_assets, Real>;

  // The trades' exercise policies, calibrated on the host.
  template <typename Real>
  basic_calibration<Real> calibrated(const basic_exercise_family<Real>& trades, const run_control& control) const
  {
    calibration_plan const plan = plan_calibration(trades.trades, trades.calibration_blocks, 0);
    auto executor = make_cpu_calibration(trades, layout_of(trades), plan, control, surfaces_.of<Real>().data());
    return calibrate(trades, plan, *executor, control);
  }

  // f's pricing paths under c's policies (each trade's continuation today kept; a cancelled
  // calibration's trades marked), then its Greek combinations where it has them.
  template <typename Real>
  family_run price_calibrated(const basic_exercise_family<Real>& f, const basic_calibration<Real>& c,
                              const run_control& control) const
  {
    auto const l = layout_of(f);
    auto const tables = pack_tables(f, c.coefficients, l);
    basic_exercise_tables<Real> const tab = tables_at(tables.data(), l, surfaces_.of<Real>().data());
    family_run run = quasi_ ? price_exercise<exercise_sobol_stream<Real>>(f, tab, control)
                            : price_exercise<rng::host_normal_stream>(f, tab, control);
    for (std::size_t i = 0; i < run.outcomes.size(); ++i) {
      run.outcomes[i].continuation_today = c.continuation_today[i];
      if (c.cancelled) run.outcomes[i].cancelled = true;
    }
    if (!f.combinations.empty()) {
      run.combinations = quasi_ ? price_combinations<exercise_sobol_stream<Real>>(f, tab, control)
                                : price_combinations<rng::host_normal_stream>(f, tab, control);
    }
    return run;
  }

  template <typename Stream, typename Real>
  family_run price_exercise(const basic_exercise_family<Real>& f, const basic_exercise_tables<Real>& tab,
                            const run_control& control) const
  {
    return run_blocks(f.trades, f.blocks, control, [&](std::size_t i, std::int64_t block) {
      return over_lanes([&](int lane) { return exercise_lane<Stream>(f.trades[i], tab, block, lane); });
    });
  }
  template <typename Stream, typename Real>
  std::vector<trade_outcome> price_combinations(const basic_exercise_family<Real>& f,
                                                const basic_exercise_tables<Real>& tab,
                                                const run_control& control) const
  {
    return run_blocks(f.combinations, f.combination_blocks, control,
                      [&](std::size_t i, std::int64_t block) {
                        return over_lanes(
                            [&](int lane) { return combination_lane<Stream>(f.combinations[i], tab, block, lane); });
                      })
        .outcomes;
  }

  // A family's blocks on the host, its lanes reading its tables where the host keeps them.
  template <typename Stream, typename Family>
  family_run run_family(const family_batch<Family>& b, bool greeks, const run_control& control) const
  {
    auto const tables = b.tables.place([this](const auto& v) {
      using table = std::decay_t<decltype(v)>;
      if constexpr (is_vol_pair_table<table>) return surfaces_.of<typename table::real>().data();
      else return v.data();
    });
    // Autocallables' records point at their counters: a copy of the records then.
    tally_layout const tallies(b.records);
    std::vector<unsigned long long> counts(tallies.slots(), 0);
    std::vector<typename Family::record> counted;
    if (tallies.slots() > 0) {
      counted = b.records;
      tallies.bind(counted.data(), counts.data());
    }
    const auto& records = tallies.slots() > 0 ? counted : b.records;
    family_run run = [&] {
      if constexpr (has_greeks<Family>) {
        if (greeks) {
          return run_blocks(records, b.blocks, control, [&](std::size_t i, std::int64_t block) {
            return over_lanes(
                [&](int lane) { return Family::template greek_lane<Stream>(records[i], tables, block, lane); });
          });
        }
      }
      return run_blocks(records, b.blocks, control, [&](std::size_t i, std::int64_t block) {
        return over_lanes(
            [&](int lane) { return Family::template price_lane<Stream>(records[i], tables, block, lane); });
      });
    }();
    tallies.keep(counts.data(), run);
    return run;
  }

  // block_moments(trade index, block within the trade) -> the sums of that canonical block.
  template <typename Trade, typename BlockMoments>
  family_run run_blocks(const std::vector<Trade>& trades, std::int64_t total_blocks, const run_control& control,
                        BlockMoments block_moments) const
  {
    segment_plan const plan = plan_segments(first_blocks_of(trades), total_blocks);
    using sums_type = decltype(block_moments(std::size_t{0}, std::int64_t{0}));
    std::vector<sums_type> sums(plan.segments.size());
    std::vector<char> summed(plan.segments.size(), 0);  // cancelled runs leave some out
    std::atomic<std::int64_t> done{0};
    auto segment_sums = [&](std::size_t s) {
      const segment& seg = plan.segments[s];
      std::int64_t const first = trades[seg.trade].first_block;
      sums_type m{};
      // Cancellation is looked at before every block, so a stop takes a block's time; a
      // segment left part-way is not summed and its trade comes back cancelled, never
      // half-priced.
      for (std::int64_t b = seg.first_block; b < seg.first_block + seg.blocks; ++b) {
        if (control.cancelled()) return;
        m = m + block_moments(seg.trade, b - first);
      }
      sums[s] = m;
      summed[s] = 1;
      done.fetch_add(seg.blocks);
    };
    // No more threads than segments, all but this one kept by the backend: starting threads
    // for each call cost a small request more than its blocks (docs/benchmarks.md). This thread
    // claims segments too, and never waits for a helper that has not started. With a progress
    // callback this thread reports while the kept threads price.
    std::size_t const workers = std::max<std::size_t>(1, std::min<std::size_t>(threads_, plan.segments.size()));
    if (!control.progress) {
      claim_each(helpers_, plan.segments.size(), workers - 1, segment_sums);
    } else {
      report_while_pricing(trades, total_blocks, control, plan.segments.size(), workers, done, segment_sums);
    }

    auto const totals = combine_segments(plan, sums, trades.size());
    family_run run;
    run.outcomes.resize(trades.size());
    for (std::size_t i = 0; i < trades.size(); ++i) keep(run.outcomes[i], totals[i]);
    for (std::size_t s = 0; s < plan.segments.size(); ++s) {
      if (!summed[s]) run.outcomes[plan.segments[s].trade].cancelled = true;
    }
    return run;
  }

  // Prices every segment on `workers` kept threads while this thread reports progress every
  // 200 ms from `done` (blocks summed), and once more at the end.
  template <typename Trade, typename SegmentSums>
  void report_while_pricing(const std::vector<Trade>& trades, std::int64_t total_blocks, const run_control& control,
                            std::size_t segments, std::size_t workers, const std::atomic<std::int64_t>& done,
                            SegmentSums& segment_sums) const
  {
    std::atomic<std::size_t> next{0};
    auto worker = [&] {
      for (std::size_t s = next.fetch_add(1); s < segments; s = next.fetch_add(1)) segment_sums(s);
    };
    std::vector<std::future<void>> running;
    running.reserve(workers);
    try {
      for (std::size_t i = 0; i < workers; ++i) running.push_back(helpers_.run(worker));
    } catch (...) {
      // A thread that cannot start leaves fewer workers, never this frame unwound under the
      // running ones; with none, this thread prices and reports once, at the end.
      if (running.empty()) worker();
    }
    std::int64_t total = 0;
    for (auto const& t : trades) total += t.samples;
    // Every worker ends before any exception is rethrown, the callback's included: they use
    // this frame's locals, and a kept thread's future does not wait for its task when destroyed.
    std::exception_ptr failure;
    for (auto& w : running) {
      while (w.wait_for(std::chrono::milliseconds(200)) != std::future_status::ready) {
        if (failure) continue;
        try {
          control.progress(total * done.load() / std::max<std::int64_t>(1, total_blocks), total);
        } catch (...) {
          failure = std::current_exception();
        }
      }
    }
    for (auto& w : running) w.get();  // a worker's exception
    if (failure) std::rethrow_exception(failure);
    control.progress(total, total);
  }

  market_surfaces surfaces_;  // the market's local-vol grids, for the engine's lifetime
  bool quasi_;
  unsigned threads_;
  std::string name_;
  mutable thread_cache helpers_;  // kept across calls; a task never queues behind a busy one
};

}  // namespace

std::unique_ptr<pricing_backend> make_cpu_backend(unsigned threads, rng_kind rng, const market_data& market)
{
  return std::make_unique<cpu_backend>(threads, rng, market);
}

}  // namespace mcprice::detail
