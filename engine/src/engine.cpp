#include "mcprice/engine.hpp"

#include "basket_setup.hpp"
#include "early_exercise_setup.hpp"
#include "exercise_greeks.hpp"
#include "european_setup.hpp"
#include "greek_statistics.hpp"
#include "path_setup.hpp"
#include "mcprice/input_error.hpp"
#include "mcprice/memory/device_info.hpp"
#include "parallel_for.hpp"
#include "pipeline_plan.hpp"
#include "pricing_backend.hpp"
#include "result_statistics.hpp"
#include "submission_order.hpp"
#include "trade_validation.hpp"

#include <chrono>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <variant>

namespace mcprice {

struct engine::impl {
  market_data market;
  engine_options options;
  std::unique_ptr<detail::pricing_backend> backend;
  std::vector<std::string> notices;
  detail::thread_cache threads;  // the calls' host threads (last: stopped before the backend goes)
};

namespace {

// The trades of one kernel family in a request, with what turns their sums into results.
struct family_base {
  std::vector<double> scales;
  std::vector<std::int64_t> paths;
  std::vector<std::int64_t> samples;
  std::vector<std::size_t> rows;  // input row of each trade
};

template <typename Trade>
struct family : family_base {
  std::vector<Trade> trades;
  std::int64_t blocks{0};

  void add(Trade t, std::int64_t trade_blocks, double scale, std::int64_t trade_paths, std::size_t row)
  {
    t.first_block = blocks;
    blocks += trade_blocks;
    samples.push_back(t.samples);
    trades.push_back(t);
    scales.push_back(scale);
    paths.push_back(trade_paths);
    rows.push_back(row);
  }
};

std::unique_ptr<detail::pricing_backend> choose_backend(const engine_options& opt, const market_data& market,
                                                        std::vector<std::string>& notices)
{
  if (opt.backend == backend_choice::cpu) return detail::make_cpu_backend(opt.threads);
  int const devices = usable_device_count();
  if (opt.device < 0 || opt.device >= devices) {
    std::string const why = devices == 0 ? "no usable CUDA GPU was found"
                                         : "GPU " + std::to_string(opt.device) + " does not exist (" +
                                               std::to_string(devices) + " usable)";
    if (opt.backend == backend_choice::gpu) throw configuration_error("--backend gpu: " + why);
    notices.push_back(why + "; pricing on the CPU backend");
    return detail::make_cpu_backend(opt.threads);
  }
  return detail::make_gpu_backend(opt, market, notices);
}

}  // namespace

engine::engine(market_data market, engine_options options) : impl_(std::make_unique<impl>())
{
  if (options.paths < 2 || options.paths > max_paths_per_trade) {
    throw configuration_error("paths " + std::to_string(options.paths) + " must be in [2, " +
                              std::to_string(max_paths_per_trade) + "]");
  }
  if (options.steps < 1) throw configuration_error("steps must be >= 1");
  if (options.greeks && options.route == kernel_route::two_phase) {
    throw configuration_error("--greeks: Greeks are computed on the fused route; --route two-phase cannot give them");
  }
  impl_->market = std::move(market);
  impl_->options = options;
  impl_->backend = choose_backend(options, impl_->market, impl_->notices);
}

engine::~engine() = default;
engine::engine(engine&&) noexcept = default;
engine& engine::operator=(engine&&) noexcept = default;

backend_kind engine::backend() const noexcept { return impl_->backend->kind(); }
const std::string& engine::device_name() const noexcept { return impl_->backend->name(); }
const engine_options& engine::options() const noexcept { return impl_->options; }
const std::vector<std::string>& engine::notices() const noexcept { return impl_->notices; }
std::optional<memory_report> engine::memory() const { return impl_->backend->memory(); }
void engine::trim_memory() const { impl_->backend->trim_memory(); }

namespace {

// GBM path trades with their time grids (and with Greeks, the Greek grids parallel to them).
struct path_family : family<path_gbm_trade> {
  std::vector<path_step> grid;
  std::vector<path_greek_step> greek_grid;

  void add_job(detail::path_job& p, std::size_t row)
  {
    p.kernel.first_step = static_cast<std::int32_t>(grid.size());
    grid.insert(grid.end(), p.steps.begin(), p.steps.end());
    greek_grid.insert(greek_grid.end(), p.greek_steps.begin(), p.greek_steps.end());
    add(p.kernel, layout::blocks_for(p.kernel.samples, path_normals_per_sample), p.scale, p.paths, row);
  }
};

// An American or Bermudan trade, with its Greek scenarios when Greeks are asked for.
struct exercise_work {
  detail::exercise_job job;
  std::optional<detail::exercise_greek_plan> greeks;
};

// American and Bermudan trades with their tables, what exercising today would pay, and their
// Greeks' combinations (combination range per trade).
struct exercise_rows : family_base {
  detail::exercise_family f;
  std::vector<double> exercise_today;
  std::vector<std::optional<detail::exercise_greek_plan>> greeks;
  std::vector<std::size_t> first_combination;

  void add_job(exercise_work& w, std::size_t row)
  {
    std::size_t const trade = f.trades.size();
    detail::add_to_family(f, w.job);
    samples.push_back(w.job.kernel.samples);
    scales.push_back(w.job.scale);
    paths.push_back(w.job.paths);
    rows.push_back(row);
    exercise_today.push_back(w.job.exercise_today);
    first_combination.push_back(f.combinations.size());
    if (w.greeks) {
      std::vector<std::int32_t> scenario;
      for (auto const& s : w.greeks->scenarios) scenario.push_back(detail::add_scenario(f, s, trade));
      for (auto const& g : w.greeks->greeks) {
        exercise_combination c{};
        c.samples = w.job.kernel.samples;
        c.first_block = f.combination_blocks;
        f.combination_blocks += layout::blocks_for(c.samples, exercise_normals_per_sample);
        c.legs = static_cast<std::int32_t>(g.legs.size());
        c.shared_path = g.shared_path ? 1 : 0;
        for (std::size_t k = 0; k < g.legs.size(); ++k) {
          c.scenario[k] = scenario[g.legs[k].scenario];
          c.weight[k] = g.legs[k].weight;
        }
        f.combinations.push_back(c);
      }
      // The tables are in the family now; the plan keeps only what results need.
      for (auto& s : w.greeks->scenarios) s = {s.kernel, {}, {}, {}, {}, {}, s.scale, s.paths, s.exercise_today};
    }
    greeks.push_back(std::move(w.greeks));
  }

  // Trade k's Greeks from the run's combinations (none if any of them failed).
  [[nodiscard]] std::optional<trade_greeks> greeks_of(std::size_t k, const detail::family_run& run, bool today) const
  {
    if (!greeks[k]) return std::nullopt;
    const detail::exercise_greek_plan& plan = *greeks[k];
    if (today) return detail::exercised_today_greeks(plan, scales[k]);
    std::vector<greek_estimate> values;
    for (std::size_t g = 0; g < plan.greeks.size(); ++g) {
      std::size_t const c = first_combination[k] + g;
      if (c >= run.combinations.size()) return std::nullopt;
      auto const& o = run.combinations[c];
      if (!o.error.empty() || o.cancelled) return std::nullopt;
      values.push_back(detail::estimate(o.sums, samples[k], scales[k] / plan.greeks[g].denominator));
    }
    return detail::assemble_exercise_greeks(plan, values);
  }
};

// The trades of one chunk of a request, by kernel family, with their tables.
struct request_families {
  family<european_gbm_trade> europeans;
  std::vector<detail::greek_inputs> european_greeks;  // with Greeks: per european, in order
  path_family paths;           // with Greeks: Asians only
  path_family scenario_paths;  // with Greeks: barriers, touches and lookbacks (scenario lanes)
  family<basket_gbm_trade> baskets;
  std::vector<basket_asset> basket_assets;
  std::vector<float> factors;
  family<heston_trade> hestons;
  std::vector<heston_step> heston_steps;
  exercise_rows exercises;
  std::vector<std::pair<std::size_t, std::string>> rejected;  // rows the checks refused, and why
};

// Early-exercise work is boxed: it is twice the size of the others, and a chunk's jobs are
// fresh memory every call (first touching a page cost 1-3 us on the GPU host).
using trade_job = std::variant<detail::european_job, detail::path_job, detail::basket_job, detail::heston_job,
                               std::unique_ptr<exercise_work>>;

// Fills `message` (why the trade cannot be priced) or returns the trade's kernel work.
std::optional<trade_job> check_and_build(const trade& t, std::string& message, const market_data& market,
                                         const engine_options& options)
{
  message = t.row_error;
  std::size_t first_underlying = 0;  // found by the checks: the one market lookup of a vanilla
  if (message.empty()) message = detail::validate_trade(t, market, &first_underlying);
  if (message.empty() && t.paths && *t.paths > max_paths_per_trade) {
    message = "trade " + t.id + ": paths " + std::to_string(*t.paths) + " exceeds the limit " +
              std::to_string(max_paths_per_trade);
  }
  if (message.empty()) message = detail::unsupported_feature(t, market);
  if (!message.empty()) return std::nullopt;
  bool const heston_basket =
      detail::multi_asset(t.product) && market.assets()[first_underlying].model == model_kind::heston;
  if (t.exercise != exercise_style::european || heston_basket) {
    auto w = std::make_unique<exercise_work>(exercise_work{detail::make_exercise_job(t, market, options), std::nullopt});
    if (options.greeks) w->greeks = detail::make_exercise_greeks(t, market, options);
    return trade_job(std::move(w));
  }
  const asset& a = market.assets()[first_underlying];
  if (a.model == model_kind::heston) return detail::make_heston_job(t, a, market, options);
  switch (t.product) {
    case product_kind::vanilla:
    case product_kind::digital: return detail::make_european_job(t, a, market, options);
    case product_kind::basket:
    case product_kind::best_of:
    case product_kind::worst_of:
    case product_kind::spread: return detail::make_basket_job(t, market, options);
    default: return detail::make_path_job(t, a, market, options);
  }
}

// Checks rows [begin, end) and builds their kernel records (independent per trade: several
// threads on large books), then numbers their blocks in input order, per family. The results
// are not touched: a pipeline's first chunk is prepared while they are still being allocated.
request_families prepare_rows(const portfolio& trades, std::size_t begin, std::size_t end, const market_data& market,
                              const engine_options& options, detail::thread_cache& threads, std::size_t trades_per_thread)
{
  std::vector<std::optional<trade_job>> jobs(end - begin);
  std::vector<std::string> messages(end - begin);
  detail::parallel_for(
      threads, end - begin,
      [&](std::size_t k) { jobs[k] = check_and_build(trades.trades[begin + k], messages[k], market, options); },
      trades_per_thread);
  request_families f;
  for (std::size_t k = 0; k < jobs.size(); ++k) {
    std::size_t const i = begin + k;
    if (!jobs[k]) {
      f.rejected.emplace_back(i, std::move(messages[k]));
      continue;
    }
    if (auto* e = std::get_if<detail::european_job>(&*jobs[k])) {
      f.europeans.add(e->kernel, layout::blocks_for(e->kernel.samples, european_normals_per_sample), e->scale, e->paths, i);
      if (options.greeks) f.european_greeks.push_back(e->greeks);
    } else if (auto* h = std::get_if<detail::heston_job>(&*jobs[k])) {
      h->kernel.first_step = static_cast<std::int32_t>(f.heston_steps.size());
      f.heston_steps.insert(f.heston_steps.end(), h->steps.begin(), h->steps.end());
      f.hestons.add(h->kernel, layout::blocks_for(h->kernel.samples, path_normals_per_sample), h->scale, h->paths, i);
    } else if (auto* x = std::get_if<std::unique_ptr<exercise_work>>(&*jobs[k])) {
      f.exercises.add_job(**x, i);
    } else if (auto* b = std::get_if<detail::basket_job>(&*jobs[k])) {
      b->kernel.first_asset = static_cast<std::int32_t>(f.basket_assets.size());
      b->kernel.first_factor = static_cast<std::int32_t>(f.factors.size());
      f.basket_assets.insert(f.basket_assets.end(), b->assets.begin(), b->assets.end());
      f.factors.insert(f.factors.end(), b->factor.begin(), b->factor.end());
      f.baskets.add(b->kernel, layout::blocks_for(b->kernel.samples, basket_normals_per_sample), b->scale, b->paths, i);
    } else {
      auto& p = std::get<detail::path_job>(*jobs[k]);
      bool const scenario_lanes = options.greeks && p.kernel.product != path_product::asian;
      (scenario_lanes ? f.scenario_paths : f.paths).add_job(p, i);
    }
  }
  return f;
}

// Progress of several families and chunks in flight, summed for the caller (who may see totals
// grow as chunks are submitted), one report at a time.
class progress_sum {
 public:
  explicit progress_sum(const progress_callback& user) : user_(user) {}
  progress_callback for_slot(std::size_t slot)
  {
    if (!user_) return {};
    std::lock_guard<std::mutex> const lock(mutex_);
    if (parts_.size() <= slot) parts_.resize(slot + 1);
    return [this, slot](std::int64_t done, std::int64_t total) {
      std::lock_guard<std::mutex> const guard(mutex_);
      parts_[slot] = {done, total};
      std::int64_t d = 0;
      std::int64_t t = 0;
      for (auto const& [pd, pt] : parts_) {
        d += pd;
        t += pt;
      }
      user_(d, t);
    };
  }

 private:
  const progress_callback& user_;
  std::mutex mutex_;
  std::vector<std::pair<std::int64_t, std::int64_t>> parts_;
};

// Large books on the GPU go as a pipeline of chunks (pipeline_plan.hpp): the host checks and
// prepares chunk k+1 while the GPU prices chunk k, and turns chunk k's sums into results while
// it prices later ones. A trade's numbers depend only on its own blocks, so chunking never
// changes them (engine_options::pipeline_chunk_trades).
constexpr std::size_t unpipelined_trades_per_thread = 2048;  // more measured slower beside callers

// A trade the run was stopped before pricing.
void mark_cancelled(trade_result& r, const std::string& id)
{
  r.id = id;
  r.status = trade_status::cancelled;
  r.message = "trade " + id + ": cancelled before it was priced";
}

// Waits for every future, running the deferred ones first (they are this thread's share of
// the work, best started while the helpers' is in flight), and even after one fails (they all
// write into shared state); then rethrows the first failure. f(i, value) takes each result.
template <typename T, typename Take>
void wait_all(std::vector<std::future<T>>& pending, Take&& take)
{
  std::exception_ptr failure;
  for (int pass = 0; pass < 2; ++pass) {
    for (std::size_t i = 0; i < pending.size(); ++i) {
      if (!pending[i].valid()) continue;  // taken in the first pass
      bool const deferred = pending[i].wait_for(std::chrono::seconds(0)) == std::future_status::deferred;
      if (deferred != (pass == 0)) continue;
      try {
        take(i, pending[i].get());
      } catch (...) {
        if (!failure) failure = std::current_exception();
      }
    }
  }
  if (failure) std::rethrow_exception(failure);
}

// An American trade worth more exercised today than its calibrated continuation is exercised
// today: its price is what exercising pays, with no Monte Carlo error.
bool exercise_today_if_better(trade_result& r, double exercise_today, double continuation, double scale)
{
  if (exercise_today < 0.0 || exercise_today <= continuation) return false;
  r.price = exercise_today * scale;
  r.std_error = 0.0;
  r.ci_low = r.price;
  r.ci_high = r.price;
  return true;
}

struct chunk_timing {
  double price_seconds{0.0};
  double results_seconds{0.0};
  std::size_t jobs{0};
  // The chunk's rows by outcome (the summary's counts, made where the rows are hot).
  std::size_t priced{0};
  std::size_t cancelled{0};
  std::size_t without_greeks{0};
  std::int64_t paths{0};
};

// What every chunk of a call shares.
struct call_state {
  const detail::pricing_backend& backend;
  detail::thread_cache& threads;
  const portfolio& book;
  std::vector<trade_result>& results;
  std::shared_future<void> results_ready;  // the results vector is sized (off the critical path)
  progress_sum& progress;
  const std::atomic<bool>* cancel;
  detail::run_timeline* timeline;
  detail::submission_order* order;  // pipelined calls: chunks queue their GPU work in order
  bool greeks;
  std::size_t results_per_thread;  // rows a thread turns into results
  std::size_t chunks;
};

// A chunk's family runs that queue GPU work in chunk order (the early-exercise family's
// calibration and pricing requests are not ordered).
std::size_t ordered_families(const request_families& f)
{
  std::size_t n = 0;
  for (const family_base* fam : {static_cast<const family_base*>(&f.europeans), static_cast<const family_base*>(&f.paths),
                                 static_cast<const family_base*>(&f.scenario_paths),
                                 static_cast<const family_base*>(&f.hestons), static_cast<const family_base*>(&f.baskets)}) {
    if (!fam->rows.empty()) ++n;
  }
  return n;
}

// A pipelined chunk's family asks for at most this many GPU jobs: each costs host time to
// queue, and the chunks already keep the streams busy.
constexpr std::size_t pipelined_jobs_per_family = 2;

// Prices a chunk's families and turns their sums into its rows of results. On the GPU the
// families run side by side (each is a request of its own on the shared stream pool), so one
// family's kernels fill the GPU while another's are planned, uploaded or collected.
chunk_timing price_families(const call_state& call, const request_families& f, std::size_t chunk, std::size_t begin,
                            std::size_t end)
{
  auto const start = std::chrono::steady_clock::now();
  bool const greeks = call.greeks;
  const detail::pricing_backend& backend = call.backend;
  constexpr std::size_t families = 6;
  std::vector<std::pair<const family_base*, std::function<detail::family_run(const detail::run_control&)>>> runs;
  if (!f.europeans.trades.empty()) {
    runs.emplace_back(&f.europeans, [&](const detail::run_control& p) {
      if (greeks) return backend.run_european_greeks(f.europeans.trades, f.europeans.blocks, p);
      return backend.run_european(f.europeans.trades, f.europeans.blocks, p);
    });
  }
  for (const path_family* fam : {&f.paths, &f.scenario_paths}) {
    if (fam->trades.empty()) continue;
    bool const scenario_lanes = fam == &f.scenario_paths;
    runs.emplace_back(fam, [&backend, fam, greeks, scenario_lanes](const detail::run_control& p) {
      if (greeks) return backend.run_path_greeks(fam->trades, fam->grid, fam->greek_grid, fam->blocks, scenario_lanes, p);
      return backend.run_path(fam->trades, fam->grid, fam->blocks, p);
    });
  }
  if (!f.hestons.trades.empty()) {
    runs.emplace_back(&f.hestons, [&](const detail::run_control& p) {
      if (greeks) return backend.run_heston_greeks(f.hestons.trades, f.heston_steps, f.hestons.blocks, p);
      return backend.run_heston(f.hestons.trades, f.heston_steps, f.hestons.blocks, p);
    });
  }
  if (!f.baskets.trades.empty()) {
    runs.emplace_back(&f.baskets, [&](const detail::run_control& p) {
      if (greeks) return backend.run_basket_greeks(f.baskets.trades, f.basket_assets, f.factors, f.baskets.blocks, p);
      return backend.run_basket(f.baskets.trades, f.basket_assets, f.factors, f.baskets.blocks, p);
    });
  }
  if (!f.exercises.f.trades.empty()) {
    runs.emplace_back(&f.exercises, [&](const detail::run_control& p) { return backend.run_early_exercise(f.exercises.f, p); });
  }
  bool const side_by_side = backend.kind() == backend_kind::gpu;
  std::vector<std::future<detail::family_run>> pending;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    detail::run_control control;
    control.progress = call.progress.for_slot(chunk * families + i);
    control.cancel = call.cancel;
    control.timeline = call.timeline;
    control.chunk = chunk;
    control.spin_wait = call.order == nullptr || chunk + 2 >= call.chunks;
    if (call.order != nullptr && runs[i].first != &f.exercises) {
      control.max_jobs = pipelined_jobs_per_family;
      control.wait_turn = [order = call.order, chunk] { order->wait_turn(chunk); };
      control.submitted = [order = call.order, chunk] { order->submitted(chunk); };
    }
    // The last family runs on this thread; on the CPU each family uses every core already.
    auto run = [f = runs[i].second, control = std::move(control)] { return f(control); };
    if (side_by_side && i + 1 < runs.size()) pending.push_back(call.threads.run(std::move(run)));
    else pending.push_back(std::async(std::launch::deferred, std::move(run)));
  }
  std::vector<std::pair<const family_base*, detail::family_run>> outcomes(runs.size());
  wait_all(pending, [&](std::size_t i, detail::family_run r) { outcomes[i] = {runs[i].first, std::move(r)}; });
  auto const collected = std::chrono::steady_clock::now();
  if (call.timeline != nullptr) {
    call.timeline->add({"price", chunk, 0, call.timeline->seconds(start), call.timeline->seconds(collected), false});
  }
  chunk_timing timing;
  timing.price_seconds = std::chrono::duration<double>(collected - start).count();
  call.results_ready.wait();
  std::vector<trade_result>& results = call.results;
  for (auto& [row, message] : f.rejected) {
    results[row].id = call.book.trades[row].id;
    results[row].message = message;
  }
  for (auto const& [fam, outcome] : outcomes) {
    timing.jobs += outcome.jobs;
    detail::parallel_for(call.threads, fam->rows.size(), [&, fam = fam](std::size_t k) {
      trade_result& r = results[fam->rows[k]];
      const std::string& id = call.book.trades[fam->rows[k]].id;
      auto const& o = outcome.outcomes[k];
      if (!o.error.empty()) {
        r.id = id;
        r.message = "trade " + id + ": " + o.error;
        return;
      }
      if (o.cancelled) {
        mark_cancelled(r, id);
        return;
      }
      r = detail::make_result(id, o.sums, fam->samples[k], fam->paths[k], fam->scales[k]);
      if (fam == &f.exercises) {
        bool const today =
            exercise_today_if_better(r, f.exercises.exercise_today[k], o.continuation_today, fam->scales[k]);
        if (greeks) r.greeks = f.exercises.greeks_of(k, outcome, today);
      }
      if (greeks && fam == &f.europeans) {
        r.greeks = detail::make_greeks(o.sums, o.greek_sums().greeks, fam->samples[k], fam->scales[k], f.european_greeks[k]);
      } else if (greeks && (fam == &f.paths || fam == &f.scenario_paths)) {
        r.greeks = detail::make_path_greeks(o.greek_sums().path_greeks, fam->samples[k], fam->scales[k],
                                            fam == &f.paths ? greek_method::pathwise_bumped_gamma
                                                            : greek_method::central_bumps);
      } else if (greeks && fam == &f.hestons) {
        r.greeks = detail::make_path_greeks(o.greek_sums().path_greeks, fam->samples[k], fam->scales[k], greek_method::central_bumps);
      } else if (greeks && fam == &f.baskets && f.baskets.trades[k].greeks) {
        r.greeks = detail::make_basket_greeks(o.greek_sums().basket_greeks, f.baskets.trades[k].assets, fam->samples[k],
                                              fam->scales[k]);
      }
    }, call.results_per_thread);
  }
  for (std::size_t i = begin; i < end; ++i) {
    trade_result const& r = results[i];
    if (r.status == trade_status::cancelled) {
      ++timing.cancelled;
    } else if (r.status == trade_status::ok) {
      ++timing.priced;
      timing.paths += r.paths;
      if (greeks && !r.greeks) ++timing.without_greeks;
    }
  }
  auto const done = std::chrono::steady_clock::now();
  timing.results_seconds = std::chrono::duration<double>(done - collected).count();
  if (call.timeline != nullptr) {
    call.timeline->add({"results", chunk, 0, call.timeline->seconds(collected), call.timeline->seconds(done), false});
  }
  return timing;
}

// A pipeline pays when the GPU's work per trade outlasts the host's preparation of it (about
// 0.25 us a trade on one core, against some 0.4 us of GPU time for 262,144 European paths).
// The estimate counts path-steps: paths, times the steps of path-dependent products.
constexpr double min_path_steps_per_trade = 131072.0;

bool worth_a_pipeline(const portfolio& book, const engine_options& options)
{
  if (book.trades.empty()) return false;
  // Estimated from at most 256 evenly spaced trades: a pass over every row of a large book
  // (some 300 bytes each) would cost more than its first chunk's preparation.
  std::size_t const n = book.trades.size();
  std::size_t const looked = std::min<std::size_t>(n, 256);
  double work = 0.0;
  for (std::size_t k = 0; k < looked; ++k) {
    const trade& t = book.trades[k * n / looked];
    bool const terminal =
        t.product == product_kind::vanilla || t.product == product_kind::digital || detail::multi_asset(t.product);
    double const steps = terminal ? 1.0 : static_cast<double>(t.steps.value_or(options.steps));
    work += static_cast<double>(t.paths.value_or(options.paths)) * steps;
  }
  return work / static_cast<double>(looked) >= min_path_steps_per_trade;
}

}  // namespace

pricing_run engine::price(const portfolio& trades, const progress_callback& progress,
                          const std::atomic<bool>* cancel) const
{
  auto const start = std::chrono::steady_clock::now();
  std::optional<detail::run_timeline> timeline;
  if (impl_->options.timeline) timeline.emplace(start);
  detail::run_timeline* const trace = timeline ? &*timeline : nullptr;
  pricing_run run;
  std::size_t const n = trades.trades.size();

  bool const pipelined = impl_->backend->kind() == backend_kind::gpu && worth_a_pipeline(trades, impl_->options);
  auto const bounds = detail::pipeline_bounds(n, pipelined ? impl_->options.pipeline_chunk_trades : 0);
  std::size_t const chunks = bounds.size() - 1;
  // The results (some 300 bytes a trade, first touched here) are sized beside the first chunk's
  // preparation and submission when pipelined, instead of before them.
  if (trace != nullptr) trace->add({"setup", 0, 0, 0.0, trace->now(), false});
  progress_sum sums(progress);
  detail::submission_order order;
  // Nothing below throws until every task that refers to this frame has been waited for.
  auto size_results = [&run, n] { run.results.resize(n); };
  std::shared_future<void> results_ready = chunks > 1 ? impl_->threads.run(size_results).share()
                                                      : std::async(std::launch::deferred, size_results).share();
  if (chunks == 1) results_ready.wait();
  call_state const call{*impl_->backend, impl_->threads, trades, run.results, results_ready, sums, cancel, trace,
                        chunks > 1 ? &order : nullptr, impl_->options.greeks,
                        chunks > 1 ? detail::pipeline_trades_per_thread : unpipelined_trades_per_thread, chunks};
  // Chunks [from, to): each prepared on the calling thread, then priced on a kept thread, but
  // the last here (deferred: run when waited for, with nothing left to prepare meanwhile).
  struct launched {
    std::vector<std::future<chunk_timing>> in_flight;
    std::exception_ptr failure;
    std::size_t unstarted_cancelled{0};
    double prepare_seconds{0.0};
  };
  std::atomic<bool> stop_launching{false};  // a chunk failed to prepare: start no more
  auto launch = [&](std::size_t from, std::size_t to, launched& out) {
    for (std::size_t c = from; c < to && !out.failure && !stop_launching.load(); ++c) {
      if (cancel != nullptr && cancel->load()) {
        // Chunks not yet prepared are not started: their rows say so, and no chunk waits for
        // their turn.
        results_ready.wait();
        for (std::size_t i = bounds[c]; i < bounds[to]; ++i) mark_cancelled(run.results[i], trades.trades[i].id);
        out.unstarted_cancelled = bounds[to] - bounds[c];
        if (chunks > 1) {
          for (std::size_t k = c; k < to; ++k) order.abandon(k);
        }
        return;
      }
      auto const prep_start = std::chrono::steady_clock::now();
      try {
        std::size_t const per_thread =
            chunks == 1 ? unpipelined_trades_per_thread : c == 0 ? n : detail::pipeline_trades_per_thread;
        auto f = std::make_shared<request_families>(
            prepare_rows(trades, bounds[c], bounds[c + 1], impl_->market, impl_->options, impl_->threads, per_thread));
        auto const prep_end = std::chrono::steady_clock::now();
        out.prepare_seconds += std::chrono::duration<double>(prep_end - prep_start).count();
        if (trace != nullptr) trace->add({"prepare", c, 0, trace->seconds(prep_start), trace->seconds(prep_end), false});
        if (chunks > 1) order.expect(c, ordered_families(*f));
        auto job = [&call, f, c, begin = bounds[c], end = bounds[c + 1]] { return price_families(call, *f, c, begin, end); };
        if (c + 1 == to) out.in_flight.push_back(std::async(std::launch::deferred, job));
        else out.in_flight.push_back(impl_->threads.run(job));
      } catch (...) {
        out.failure = std::current_exception();
        stop_launching = true;
        if (chunks > 1) order.abandon(c);
      }
    }
  };
  // The first chunk is priced on this thread as soon as it is prepared (handing it to another
  // thread took up to 150 us on the GPU host); a kept thread prepares and launches the rest.
  // (Starting that thread beside the first chunk's preparation measured slower: the two
  // preparations contend.)
  launched head;
  launched tail;
  launch(0, 1, head);
  std::future<void> launcher;
  if (chunks > 1) {
    try {
      launcher = impl_->threads.run([&] { launch(1, chunks, tail); });
    } catch (...) {
      tail.failure = std::current_exception();  // no thread: chunks 1.. never start
    }
  }
  // Every chunk is waited for, even after a failure: they write into run.results. The last
  // chunk (deferred) is submitted as soon as it is prepared, its GPU work queued behind theirs.
  std::exception_ptr failure = head.failure;
  std::size_t priced = 0;
  std::size_t cancelled = 0;
  auto take = [&](std::size_t, chunk_timing t) {
    run.summary.price_seconds += t.price_seconds;
    run.summary.results_seconds += t.results_seconds;
    run.summary.jobs += t.jobs;
    run.summary.paths += t.paths;
    run.summary.without_greeks += t.without_greeks;
    priced += t.priced;
    cancelled += t.cancelled;
  };
  for (launched* part : {&head, &tail}) {
    try {
      if (part == &tail && launcher.valid()) launcher.get();
    } catch (...) {
      if (!failure) failure = std::current_exception();
    }
    try {
      wait_all(part->in_flight, take);
    } catch (...) {
      if (!failure) failure = std::current_exception();
    }
    if (!failure) failure = part->failure;
    cancelled += part->unstarted_cancelled;
    run.summary.prepare_seconds += part->prepare_seconds;
  }
  results_ready.wait();
  if (failure) std::rethrow_exception(failure);
  double const finish_from = trace != nullptr ? trace->now() : 0.0;

  run.summary.trades = n;
  run.summary.chunks = chunks;
  run.summary.greeks = impl_->options.greeks;
  run.summary.cancelled = cancelled;
  run.summary.failed = n - priced - cancelled;
  run.summary.backend = impl_->backend->kind();
  run.summary.device_name = impl_->backend->name();
  run.summary.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (timeline) {
    timeline->add({"finish", chunks, 0, finish_from, run.summary.wall_seconds, false});
    run.summary.timeline = timeline->sorted();
  }
  return run;
}

}  // namespace mcprice
