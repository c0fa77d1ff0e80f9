#include "mcprice/engine.hpp"

#include "backends/pricing_backend.hpp"
#include "chunk_pricing.hpp"
#include "families/request_families.hpp"
#include "mcprice/input_error.hpp"
#include "mcprice/memory/device_info.hpp"
#include "planning/pipeline_plan.hpp"
#include "planning/split_pricing.hpp"
#include "planning/submission_order.hpp"
#include "products/trade_validation.hpp"
#include "runtime/call_batcher.hpp"
#include "runtime/thread_cache.hpp"
#include "statistics/replicates.hpp"
#include "testing/engine_knobs.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <future>
#include <memory>
#include <optional>

namespace mcprice {

struct engine::impl {
  market_data market;
  engine_options options;
  detail::engine_knobs knobs;
  std::unique_ptr<detail::pricing_backend> backend;  // one device, or the CPU
  std::vector<engine> devices;                       // several GPUs: an engine each (no backend here)
  std::string devices_name;
  std::vector<std::string> notices;
  std::unique_ptr<detail::call_batcher> batcher;  // batch_window_us > 0 only
  detail::thread_cache threads;  // the calls' host threads (last: stopped before the backend goes)
};

namespace {

std::unique_ptr<detail::pricing_backend> choose_backend(const engine_options& opt, const detail::engine_knobs& knobs,
                                                        const market_data& market, std::vector<std::string>& notices)
{
  if (opt.backend == backend_choice::cpu) return detail::make_cpu_backend(opt.threads, opt.rng, market);
  int const devices = usable_device_count();
  if (opt.device < 0 || opt.device >= devices) {
    std::string const why =
        devices == 0 ? "no usable CUDA GPU was found"
                     : "GPU " + std::to_string(opt.device) + " does not exist (" + std::to_string(devices) + " usable)";
    if (opt.backend == backend_choice::gpu) throw configuration_error("--backend gpu: " + why);
    notices.push_back(why + "; pricing on the CPU backend");
    return detail::make_cpu_backend(opt.threads, opt.rng, market);
  }
  return detail::make_gpu_backend(opt, knobs, market, notices);
}

// The GPUs the options name, or none when they name one at most (the plain engine serves).
std::vector<int> several_devices(const engine_options& opt)
{
  if (opt.backend == backend_choice::cpu) return {};
  int const usable = usable_device_count();
  std::vector<int> list = opt.devices;
  if (opt.every_device) {
    list.clear();
    for (int d = 0; d < usable; ++d) list.push_back(d);
  }
  if (list.size() < 2) return {};
  for (int const d : list) {
    if (d < 0 || d >= usable) {
      std::string const why =
          usable == 0 ? "no usable CUDA GPU was found"
                      : "GPU " + std::to_string(d) + " does not exist (" + std::to_string(usable) + " usable)";
      if (opt.backend == backend_choice::gpu || usable > 0) throw configuration_error("--devices: " + why);
      return {};  // automatic without a GPU: the CPU, as for one device
    }
  }
  return list;
}

}  // namespace

namespace {

// The bucketed pool's classes, where the options set them (0 keeps each default): messages name
// the value, as --memory-settings files are written by hand too.
void check_size_classes(const engine_options& o)
{
  std::size_t const lo = o.size_class_min_bytes != 0 ? o.size_class_min_bytes : std::size_t{1} << 16;
  std::size_t const hi = o.size_class_max_bytes != 0 ? o.size_class_max_bytes : std::size_t{1} << 30;
  if (lo < 256 || hi < lo) {
    throw configuration_error("size classes from " + std::to_string(lo) + " to " + std::to_string(hi) +
                              " bytes: the smallest must be at least 256 bytes and at most the largest");
  }
  if (o.size_classes_per_doubling < 0 || o.size_classes_per_doubling > 64) {
    throw configuration_error("size classes per doubling " + std::to_string(o.size_classes_per_doubling) +
                              " must be in [1, 64] (0: the default, 4)");
  }
}

// Batching across callers: a window is a wait added to calls under load, so it is bounded.
void check_batching(const engine_options& o)
{
  constexpr std::int64_t longest_window_us = 1'000'000;
  if (o.batch_window_us < 0 || o.batch_window_us > longest_window_us) {
    throw configuration_error("batch window " + std::to_string(o.batch_window_us) + " us must be in [0, " +
                              std::to_string(longest_window_us) + "] (0: no batching)");
  }
  if (o.batch_max_trades == 0) throw configuration_error("batch max trades 0 must be at least 1");
}

}  // namespace

engine::engine(market_data market, engine_options options) : engine(std::move(market), options, detail::engine_knobs{})
{
}

engine::engine(market_data market, engine_options options, const detail::engine_knobs& knobs)
    : impl_(std::make_unique<impl>())
{
  if (options.paths < 2 || options.paths > max_paths_per_trade) {
    throw configuration_error("paths " + std::to_string(options.paths) + " must be in [2, " +
                              std::to_string(max_paths_per_trade) + "]");
  }
  if (options.steps < 1) throw configuration_error("steps must be >= 1");
  if (options.rng == rng_kind::sobol) {
    if (options.rqmc_replicates < 2 || options.rqmc_replicates > options.paths) {
      throw configuration_error("--rqmc-replicates " + std::to_string(options.rqmc_replicates) +
                                " must be in [2, paths = " + std::to_string(options.paths) + "]");
    }
  }
  check_size_classes(options);
  if (options.greeks && options.route == kernel_route::two_phase) {
    throw configuration_error("--greeks: Greeks are computed on the fused route; --route two-phase cannot give them");
  }
  check_batching(options);
  impl_->market = std::move(market);
  impl_->options = options;
  impl_->knobs = knobs;
  if (options.batch_window_us > 0) {
    impl_->batcher = std::make_unique<detail::call_batcher>(std::chrono::microseconds(options.batch_window_us),
                                                            options.batch_max_trades);
  }
  auto const several = several_devices(options);
  if (several.empty()) {
    if (options.devices.size() == 1 && !options.every_device) impl_->options.device = options.devices.front();
    if (options.every_device && options.backend != backend_choice::cpu) impl_->options.device = 0;
    impl_->backend = choose_backend(impl_->options, impl_->knobs, impl_->market, impl_->notices);
    return;
  }
  std::vector<std::string> models;
  for (int const d : several) {
    engine_options one = options;
    one.devices.clear();
    one.every_device = false;
    one.device = d;
    one.backend = backend_choice::gpu;
    impl_->devices.emplace_back(impl_->market, one, knobs);
    for (auto const& n : impl_->devices.back().notices()) {
      if (std::find(impl_->notices.begin(), impl_->notices.end(), n) == impl_->notices.end())
        impl_->notices.push_back(n);
    }
    // The model, as for one GPU (a manifest compares it across reruns); several models: each.
    std::string const& model = impl_->devices.back().device_name();
    if (std::find(models.begin(), models.end(), model) == models.end()) {
      models.push_back(model);
      impl_->devices_name += (impl_->devices_name.empty() ? "" : ", ") + model;
    }
  }
}

engine::~engine() = default;
engine::engine(engine&&) noexcept = default;
engine& engine::operator=(engine&&) noexcept = default;

backend_kind engine::backend() const noexcept { return impl_->backend ? impl_->backend->kind() : backend_kind::gpu; }
const std::string& engine::device_name() const noexcept
{
  return impl_->backend ? impl_->backend->name() : impl_->devices_name;
}
const engine_options& engine::options() const noexcept { return impl_->options; }
const std::vector<std::string>& engine::notices() const noexcept { return impl_->notices; }
std::size_t engine::device_count() const noexcept { return impl_->backend ? 1 : impl_->devices.size(); }
std::optional<memory_report> engine::memory(std::size_t device) const
{
  if (impl_->backend) return device == 0 ? impl_->backend->memory() : std::nullopt;
  return device < impl_->devices.size() ? impl_->devices[device].memory() : std::nullopt;
}
void engine::trim_memory() const
{
  if (impl_->backend) impl_->backend->trim_memory();
  for (auto const& e : impl_->devices) e.trim_memory();
}
namespace {

using detail::call_state;
using detail::chunk_timing;
using detail::mark_cancelled;
using detail::prepare_rows;
using detail::price_families;
using detail::progress_sum;
using detail::request_families;
using detail::wait_all;

// Large books on the GPU go as a pipeline of chunks (pipeline_plan.hpp): the host checks and
// prepares chunk k+1 while the GPU prices chunk k, and turns chunk k's sums into results while
// it prices later ones. A trade's numbers depend only on its own blocks, so chunking never
// changes them (engine_options::pipeline_chunk_trades).
constexpr std::size_t unpipelined_trades_per_thread = 2048;  // more measured slower beside callers

// A pipeline pays when the GPU's work per trade outlasts the host's preparation of it (about
// 0.25 us a trade on one core, against some 0.4 us of GPU time for 262,144 European paths).
// The estimate counts path-steps: paths, times the steps of path-dependent products.
constexpr double min_path_steps_per_trade = 131072.0;

bool worth_a_pipeline(const portfolio& book, std::size_t begin, std::size_t end, const engine_options& options)
{
  if (end <= begin) return false;
  // Estimated from at most 256 evenly spaced trades: a pass over every row of a large book
  // (some 300 bytes each) would cost more than its first chunk's preparation.
  std::size_t const n = end - begin;
  std::size_t const looked = std::min<std::size_t>(n, 256);
  double work = 0.0;
  for (std::size_t k = 0; k < looked; ++k) {
    const trade& t = book.trades[begin + k * n / looked];
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
  if (impl_->batcher) {
    return impl_->batcher->price(
        trades,
        [this](const portfolio& book, const progress_callback& p, const std::atomic<bool>* c) {
          return price_alone(book, p, c);
        },
        progress, cancel);
  }
  return price_alone(trades, progress, cancel);
}

pricing_run engine::price_alone(const portfolio& trades, const progress_callback& progress,
                                const std::atomic<bool>* cancel) const
{
  if (impl_->options.rng == rng_kind::sobol && !trades.trades.empty() && trades.trades.front().replicate < 0) {
    // Each trade as R scramblings, priced together, then folded into its row.
    portfolio const copies = detail::replicate_book(trades, impl_->options);
    return detail::fold_replicates(price_alone(copies, progress, cancel), trades, impl_->options.rqmc_replicates);
  }
  if (!impl_->backend) {
    pricing_run run = detail::price_split(impl_->devices, impl_->market, impl_->threads, trades, progress, cancel);
    run.summary.device_name = impl_->devices_name;
    return run;
  }
  pricing_run run;
  run.summary = price_range(trades, 0, trades.trades.size(), run.results, progress, cancel);
  return run;
}

run_summary engine::price_range(const portfolio& trades, std::size_t begin, std::size_t end,
                                std::vector<trade_result>& results, const progress_callback& progress,
                                const std::atomic<bool>* cancel, std::shared_future<void> sized_elsewhere) const
{
  if (begin > end || end > trades.trades.size()) {
    throw configuration_error("price_range: trades [" + std::to_string(begin) + ", " + std::to_string(end) +
                              ") are not in a book of " + std::to_string(trades.trades.size()));
  }
  if (!impl_->backend) {
    throw configuration_error("price_range: an engine on several GPUs prices whole books (engine::price)");
  }
  if (impl_->options.rng == rng_kind::sobol && begin < end && trades.trades[begin].replicate < 0) {
    throw configuration_error("price_range: --rng sobol prices whole books, each trade as its replicates (engine::price)");
  }
  auto const start = std::chrono::steady_clock::now();
  std::optional<detail::run_timeline> timeline;
  if (impl_->options.timeline) timeline.emplace(start);
  detail::run_timeline* const trace = timeline ? &*timeline : nullptr;
  pricing_run run;  // its summary; the rows go to `results`
  std::size_t const n = end - begin;

  bool const pipelined =
      impl_->backend->kind() == backend_kind::gpu && worth_a_pipeline(trades, begin, end, impl_->options);
  auto bounds = detail::pipeline_bounds(n, pipelined ? impl_->options.pipeline_chunk_trades : 0);
  for (auto& b : bounds) b += begin;
  std::size_t const chunks = bounds.size() - 1;
  if (trace != nullptr) trace->add({"setup", 0, 0, 0.0, trace->now(), false});
  progress_sum sums(progress);
  detail::submission_order order;
  // Nothing below throws until every task that refers to this frame has been waited for. The
  // results (some 300 bytes a trade, first touched here) are sized beside the first chunk's
  // preparation and submission when pipelined, instead of before them.
  // A book's first range sizes the results for it; a later range finds them sized.
  std::size_t const rows = trades.trades.size();
  auto size_results = [&results, rows] {
    if (results.size() != rows) results.resize(rows);
  };
  std::shared_future<void> results_ready = std::move(sized_elsewhere);
  if (results_ready.valid()) {
    // Sized by the caller, beside this range's first preparation.
  } else if (results.size() == rows) {
    std::promise<void> sized;
    sized.set_value();
    results_ready = sized.get_future().share();
  } else {
    results_ready =
        chunks > 1 ? impl_->threads.run(size_results).share() : std::async(std::launch::deferred, size_results).share();
  }
  if (chunks == 1) results_ready.wait();  // a caller's sizing too: the lone chunk writes rows at once
  call_state const call{*impl_->backend,
                        impl_->threads,
                        trades,
                        results,
                        results_ready,
                        sums,
                        cancel,
                        trace,
                        chunks > 1 ? &order : nullptr,
                        impl_->options.greeks,
                        chunks > 1 ? detail::pipeline_trades_per_thread : unpipelined_trades_per_thread,
                        chunks};
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
        for (std::size_t i = bounds[c]; i < bounds[to]; ++i) mark_cancelled(results[i], trades.trades[i].id);
        out.unstarted_cancelled = bounds[to] - bounds[c];
        if (chunks > 1) {
          for (std::size_t k = c; k < to; ++k) order.abandon(k);
        }
        return;
      }
      auto const prep_start = std::chrono::steady_clock::now();
      try {
        std::size_t const per_thread = chunks == 1 ? unpipelined_trades_per_thread
                                       : c == 0    ? n
                                                   : detail::pipeline_trades_per_thread;
        auto f = std::make_shared<request_families>(
            prepare_rows(trades, bounds[c], bounds[c + 1], impl_->market, impl_->options, impl_->threads, per_thread));
        auto const prep_end = std::chrono::steady_clock::now();
        out.prepare_seconds += std::chrono::duration<double>(prep_end - prep_start).count();
        if (trace != nullptr)
          trace->add({"prepare", c, 0, trace->seconds(prep_start), trace->seconds(prep_end), false});
        auto job = [&call, f, c, begin = bounds[c], end = bounds[c + 1]] {
          return price_families(call, *f, c, begin, end);
        };
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
  return run.summary;
}

}  // namespace mcprice
