#include "backends/gpu/gpu_calibration.hpp"
#include "backends/gpu/gpu_context.hpp"
#include "backends/gpu/job_runner.hpp"
#include "backends/gpu/nvtx_range.hpp"
#include "backends/outcome_tallies.hpp"
#include "backends/pricing_backend.hpp"
#include "mcprice/input_error.hpp"
#include "mcprice/kernels/launch/exercise.hpp"
#include "mcprice/kernels/launch/kernel_modules.hpp"
#include "mcprice/kernels/launch/kernel_selection.hpp"
#include "mcprice/kernels/launch/kernel_stack.hpp"
#include "mcprice/memory/cuda_error.hpp"
#include "mcprice/memory/device_info.hpp"
#include "mcprice/memory/memory_errors.hpp"
#include "planning/work_plan.hpp"

#include <cstring>
#include <functional>
#include <future>
#include <optional>
#include <type_traits>
#include <variant>

namespace mcprice::detail {
namespace {

// A family's tables as one upload, each table from a 256-byte boundary in the order the family
// places them (family traits: tables::place), and their views once uploaded. The market's
// local-vol grids are not uploaded: their view is the market buffers' copy.
class packed_tables {
 public:
  template <typename Tables>
  explicit packed_tables(const Tables& t)
  {
    (void)t.place([this](const auto& v) {
      using value = typename std::decay_t<decltype(v)>::value_type;
      if constexpr (!is_vol_pair_table<std::decay_t<decltype(v)>>) {
        std::size_t const at = bytes_.empty() ? 0 : scratch_lease::charged(bytes_.size());
        offsets_.push_back(at);
        bytes_.resize(at + sizeof(value) * v.size());
        if (!v.empty()) std::memcpy(bytes_.data() + at, v.data(), sizeof(value) * v.size());
      }
      return static_cast<const value*>(nullptr);
    });
  }

  // The views of t's tables, uploaded at `base` (the family places its tables in one order).
  template <typename Tables>
  [[nodiscard]] auto place(const Tables& t, const void* base, const gpu_context& ctx) const
  {
    std::size_t k = 0;
    return t.place([&](const auto& v) {
      using table = std::decay_t<decltype(v)>;
      using value = typename table::value_type;
      if constexpr (is_vol_pair_table<table>) return ctx.surfaces<typename table::real>();
      else return reinterpret_cast<const value*>(static_cast<const unsigned char*>(base) + offsets_[k++]);
    });
  }

  [[nodiscard]] const std::vector<unsigned char>& bytes() const noexcept { return bytes_; }
  [[nodiscard]] const std::vector<std::size_t>& offsets() const noexcept { return offsets_; }

 private:
  std::vector<unsigned char> bytes_;
  std::vector<std::size_t> offsets_;
};

// What a request of `records` uploads, before its tables.
template <typename Record>
request_upload upload_of(const std::vector<Record>& records, std::int64_t total_blocks)
{
  request_upload u;
  u.records = records.data();
  u.record_bytes = sizeof(Record) * records.size();
  u.first_blocks = first_blocks_of(records);
  u.total_blocks = total_blocks;
  for (auto const& t : records) u.total_samples += t.samples;
  return u;
}

// One address per family: a captured graph's key (job_graphs.hpp).
template <typename Family>
inline const char graph_tag = 0;

// engine_options::graphs resolved: auto is off until the device measurements say where graphs
// pay (docs/graphs.md). Quasi-random kernels bind their direction table from pageable memory
// before each launch, which a capture cannot hold: they always run eagerly.
bool graphs_on(const engine_options& o) { return o.graphs == graph_mode::on && o.rng == rng_kind::pseudo; }

class gpu_backend final : public pricing_backend {
 public:
  gpu_backend(const engine_options& o, const engine_knobs& knobs, const market_data& market,
              std::vector<std::string>& notices)
      : grid_blocks_(o.grid_blocks),
        job_cap_(o.job_cap_bytes),
        shared_greek_walks_(knobs.shared_greek_walks),
        calibration_one_launch_(knobs.calibration_one_launch),
        two_phase_(o.route == kernel_route::two_phase),
        name_(query_device(o.device).name),
        ctx_(o, market, notices),
        runner_(ctx_, job_cap_, graphs_on(o), o.graph_cache_entries, o.graph_cache_bytes),
        host_(host_for_double(o, market, notices))
  {
    prepare_kernels(o, ctx_.device(), two_phase_, notices);
  }

  family_run run(const family_request& request, const run_control& control) const override
  {
    return std::visit(
        [&](const auto* batch) {
          using family = typename std::remove_pointer_t<std::decay_t<decltype(batch)>>::family;
          if constexpr (!has_gpu_kernels<family>) {
            return host_->run(request, control);
          } else {
            if constexpr (std::is_same_v<typename family::real, double>) {
              if (request.greeks) return host_->run(request, control);
            }
            return run_family(*batch, request.greeks, control);
          }
        },
        request.batch);
  }

  family_run run_early_exercise(const exercise_family& trades,
                                const std::function<const packed_exercise_family*()>& with_greeks,
                                const run_control& control) const override;

  // The early-exercise kernels are float only for now: double trades are calibrated and priced by
  // the host's threads, bit for bit as by the CPU backend (never in float behind the caller's back).
  family_run run_early_exercise(const basic_exercise_family<double>& trades,
                                const std::function<const basic_packed_exercise_family<double>*()>& with_greeks,
                                const run_control& control) const override
  {
    return host_->run_early_exercise(trades, with_greeks, control);
  }

  [[nodiscard]] backend_kind kind() const noexcept override { return backend_kind::gpu; }
  [[nodiscard]] const std::string& name() const noexcept override { return name_; }
  [[nodiscard]] std::optional<memory_report> memory() const override
  {
    memory_report r = ctx_.report();
    if ((r.graphs = runner_.graph_statistics())) {
      // The graphs' device buffers and scratch are held from the driver too (the peaks are each
      // part's own, so their sum bounds the whole's).
      r.held_bytes += r.graphs->device_bytes;
      r.held_peak += r.graphs->device_peak;
    }
    return r;
  }
  void trim_memory() const override
  {
    runner_.trim_graphs();
    ctx_.trim();
  }

 private:
  // A family's request: its records and tables uploaded, then each job's kernels by the
  // family's route: the Greek lanes (fused) with Greeks, else the two-phase route where asked
  // for, else fused.
  template <typename Family>
  family_run run_family(const family_batch<Family>& b, bool greeks, const run_control& control) const
  {
    using real = typename Family::real;
    bool const with_greeks = has_gpu_greeks<Family> && greeks;
    bool const two_phase = two_phase_ && !with_greeks;
    packed_tables const tables(b.tables);
    two_phase_layout const scratch = two_phase ? Family::two_phase(b.records) : two_phase_layout{};
    auto launch = [&](const request_on_device& r, kernels::block_range blocks, const job_outputs& out,
                      scratch_lease& lease, stream_view s) {
      typename Family::device_ref const f{static_cast<const typename Family::record*>(r.records), r.num_records,
                                          tables.place(b.tables, r.tables, ctx_)};
      kernels::launch_target const at{s.value(), grid_blocks_, ctx_.sobol_directions()};
      if constexpr (has_gpu_greeks<Family>) {
        if (with_greeks) {
          Family::launch_greeks(f, blocks, out.partials, static_cast<typename Family::greek_sums*>(out.greek_partials),
                                at);
          return;
        }
      }
      if (two_phase) {
        auto const n = static_cast<std::size_t>(blocks.size());
        kernels::two_phase_scratch<real> x;
        x.paths = lease.allocate_n<real>(n * static_cast<std::size_t>(scratch.path_values));
        x.rows = scratch.rows;
        x.payoffs = lease.allocate_n<real>(n * static_cast<std::size_t>(scratch.payoff_values));
        Family::launch_two_phase(f, blocks, x, out.partials, at);
        return;
      }
      Family::launch(f, blocks, out.partials, at);
    };
    request_upload u = upload_of(b.records, b.blocks);
    u.tables = tables.bytes().data();
    u.table_bytes = tables.bytes().size();
    u.scratch_per_block = sizeof(real) * static_cast<std::size_t>(scratch.path_values + scratch.payoff_values);
    if constexpr (has_gpu_greeks<Family>) {
      if (with_greeks) u.greeks = greek_reduction_of<typename Family::greek_sums>();
    }
    u.graph_family = &graph_tag<Family>;
    u.graph_shape.assign(tables.offsets().begin(), tables.offsets().end());
    u.graph_shape.insert(u.graph_shape.end(), {std::int64_t{with_greeks}, std::int64_t{two_phase},
                                               std::int64_t{scratch.rows}, scratch.path_values, scratch.payoff_values});
    tally_layout const tallies(b.records);
    u.tally_slots = tallies.slots();
    if (u.tally_slots > 0) {
      u.bind_tally = [&tallies](void* records, unsigned long long* counters) {
        tallies.bind(static_cast<typename Family::record*>(records), counters);
      };
    }
    family_run run = runner_.run(u, control, launch);
    if (!run.tally.empty()) tallies.keep(run.tally.data(), run);
    return run;
  }

  // The context's local memory, sized now for every kernel a request of these options may
  // launch (kernel_stack.hpp): a first launch that must grow it waits for the kernels already
  // running and holds the context meanwhile, which held stops and other threads' calls for
  // seconds on a large book with Greeks (docs/reliability.md). The kernels themselves load now
  // too, with the device idle, unless the caller would rather they load at their first launch
  // (a first load beside running kernels waits for them as well). Where the driver refuses (an
  // older driver, too little memory for the reservation), the engine still prices: its kernels
  // then grow local memory at their first launch, as before, and a notice says so.
  static void prepare_kernels(const engine_options& o, int device, bool two_phase, std::vector<std::string>& notices)
  {
    using kernels::kernel_group;
    unsigned groups = kernel_group::prices | kernel_group::reductions | kernel_group::exercise;
    if (o.greeks) groups = groups | kernel_group::greeks;
    if (two_phase) groups = groups | kernel_group::two_phase;
    try {
      MCPRICE_CUDA_TRY(cudaSetDevice(device));
      kernels::reserve_local_memory(kernels::reserved_local_bytes(groups));
      // Only the kernels of this engine's generator and precision (kernel_selection.hpp).
      kernels::kernel_selection const mine{o.rng == rng_kind::sobol, o.precision == path_precision::float64};
      if (o.preload_kernels) (void)kernels::load_kernel_modules(groups, mine);
    } catch (const std::exception& e) {
      (void)cudaGetLastError();  // a refused call leaves no error behind for the first request
      notices.push_back(std::string("kernels size their local memory at their first launch (a stop may then wait "
                                    "for running kernels): ") +
                        e.what());
    }
  }

  // --precision double: what the GPU has no double kernels for (early exercise, worst-ofs on
  // local-vol, Heston or jump assets, Greeks) goes to a CPU backend on all the host's cores, said
  // once on stderr.
  static std::unique_ptr<pricing_backend> host_for_double(const engine_options& o, const market_data& market,
                                                          std::vector<std::string>& notices)
  {
    if (o.precision != path_precision::float64) return nullptr;
    auto host = make_cpu_backend(o.threads, o.rng, market);
    notices.push_back(
        "--precision double: early exercise, multi-asset trades on Heston, local-vol or jump assets, "
        "and Greeks are priced in double by the host (" +
        host->name() + "); the GPU's kernels for them are float");
    return host;
  }

  family_run price_exercise_paths(const exercise_family& trades, const std::vector<float>& coefficients,
                                  const run_control& control) const;
  std::vector<trade_outcome> price_combinations(const packed_exercise_family& greeks,
                                                const std::vector<float>& coefficients,
                                                const run_control& control) const;

  int grid_blocks_;
  std::size_t job_cap_;
  bool shared_greek_walks_;
  bool calibration_one_launch_;
  bool two_phase_;
  std::string name_;
  mutable gpu_context ctx_;
  job_runner runner_;
  std::unique_ptr<pricing_backend> host_;  // --precision double only
};

// The calibration runs step by step on one stream (each step's coefficients wait for the last
// step's sums); the pricing paths then go as any family's jobs, the coefficient table in their
// tables.
family_run gpu_backend::run_early_exercise(const exercise_family& trades,
                                           const std::function<const packed_exercise_family*()>& with_greeks,
                                           const run_control& control) const
{
  MCPRICE_CUDA_TRY(cudaSetDevice(ctx_.device()));
  calibration_plan const plan = plan_calibration(trades.trades, trades.calibration_blocks, job_cap_);
  calibration c;
  std::string failure;
  try {
    nvtx_range const phase("calibration");
    double const setup_from = control.timeline != nullptr ? control.timeline->now() : 0.0;
    // One launch only where no other family of the call runs beside (gpu_calibration.cpp says why).
    auto executor = make_gpu_calibration(ctx_, trades, layout_of(trades), job_cap_, grid_blocks_, plan.resident,
                                         calibration_one_launch_ && control.alone, control.cancel);
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
    // The Greeks' scenarios were built and packed on the host while the GPU calibrated.
    const packed_exercise_family* const greeks = with_greeks();
    if (greeks == nullptr || greeks->f.combinations.empty()) {
      run = price_exercise_paths(trades, c.coefficients, control);
    } else {
      // The pricing paths on a thread of their own, beside the Greek combinations: a few
      // trades' paths leave most of the GPU idle, so their kernel runs within the Greeks'
      // rather than before it (the future's destructor waits for it if the Greeks throw).
      auto priced =
          std::async(std::launch::async, [&] { return price_exercise_paths(trades, c.coefficients, control); });
      auto combinations = price_combinations(*greeks, c.coefficients, control);
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

// The pricing paths read the trades' own tables alone (not the Greeks' scenarios).
family_run gpu_backend::price_exercise_paths(const exercise_family& trades, const std::vector<float>& coefficients,
                                             const run_control& control) const
{
  auto const l = layout_of(trades);
  auto const tables = pack_tables(trades, coefficients, l);
  auto launch = [this, l](const request_on_device& r, kernels::block_range blocks, const job_outputs& out,
                          scratch_lease&, stream_view s) {
    kernels::exercise_ref const f{static_cast<const exercise_trade*>(r.records), r.num_records,
                                  tables_at(r.tables, l, ctx_.surfaces<float>())};
    kernels::launch_exercise_price_blocks(f, blocks, out.partials, {s.value(), grid_blocks_, ctx_.sobol_directions()});
  };
  request_upload u = upload_of(trades.trades, trades.blocks);
  u.tables = tables.data();
  u.table_bytes = tables.size();
  return runner_.run(u, control, launch);
}

// The Greek combinations under the calibrated policy: their tables are the Greek book's, packed
// before the calibration ended, with the coefficients appended at upload.
std::vector<trade_outcome> gpu_backend::price_combinations(const packed_exercise_family& greeks,
                                                           const std::vector<float>& coefficients,
                                                           const run_control& control) const
{
  const exercise_family& f = greeks.f;
  exercise_table_layout const l = greeks.layout;
  std::uint32_t const asset_counts = combination_asset_counts(f);
  auto launch = [this, l, asset_counts](const request_on_device& r, kernels::block_range blocks, const job_outputs& out,
                                        scratch_lease& lease, stream_view s) {
    kernels::combination_ref const c{static_cast<const exercise_combination*>(r.records), r.num_records,
                                     tables_at(r.tables, l, ctx_.surfaces<float>())};
    kernels::launch_exercise_combination_blocks(c, blocks, out.partials, asset_counts,
                                                lease.allocate_n<unsigned long long>(kernels::combination_kernels),
                                                {s.value(), grid_blocks_, ctx_.sobol_directions()});
  };
  // Each job's scratch holds its kernel's unit counter. One job where the cap allows: the units
  // differ in cost by up to a walk of eight legs, and the jobs' kernels, each filling the GPU,
  // ran one after another, each ending on its slowest units; there is no upload or copy back to
  // overlap with.
  run_control one_job = control;
  one_job.max_jobs = 1;
  std::vector<exercise_combination> const alone =
      shared_greek_walks_ ? std::vector<exercise_combination>{} : each_leg_alone(f.combinations);
  const std::vector<exercise_combination>& combinations = shared_greek_walks_ ? f.combinations : alone;
  request_upload u = upload_of(combinations, f.combination_blocks);
  u.tables = greeks.tables.data();
  u.table_bytes = l.coefficients;
  u.tail = coefficients.data();
  u.tail_bytes = sizeof(float) * coefficients.size();
  u.scratch_per_job = sizeof(unsigned long long) * kernels::combination_kernels;
  return runner_.run(u, one_job, launch).outcomes;
}

}  // namespace

std::unique_ptr<pricing_backend> make_gpu_backend(const engine_options& options, const engine_knobs& knobs,
                                                  const market_data& market, std::vector<std::string>& notices)
{
  return std::make_unique<gpu_backend>(options, knobs, market, notices);
}

}  // namespace mcprice::detail
