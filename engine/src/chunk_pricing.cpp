#include "chunk_pricing.hpp"

#include "runtime/parallel_for.hpp"
#include "statistics/result_statistics.hpp"

#include <algorithm>
#include <functional>

namespace mcprice::detail {

void mark_cancelled(trade_result& r, const std::string& id)
{
  r.id = id;
  r.status = trade_status::cancelled;
  r.message = "trade " + id + ": cancelled before it was priced";
}

namespace {

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

// A pipelined chunk's family asks for at most this many GPU jobs: each costs host time to
// queue, and the chunks already keep the streams busy.
constexpr std::size_t pipelined_jobs_per_family = 2;

// Progress slots a chunk takes: one a registered family, one for early exercise in each precision.
constexpr std::size_t families_per_chunk = registered_families::size + 2;

// One family of a chunk as the chunk prices it: its rows, how it runs on the backend, and what
// finishes a priced trade's result (its Greeks).
struct family_task {
  const family_rows* rows;
  std::function<family_run(const run_control&)> run;
  std::function<void(std::size_t, const family_run&, trade_result&)> finish;
  bool ordered;  // queues its GPU work in chunk order (pipelined calls)
};

template <typename Family>
family_task task_of(const family_batch<Family>& batch, const pricing_backend& backend, bool greeks)
{
  family_task task{&batch,
                   [&backend, &batch, greeks](const run_control& c) {
                     return backend.run({&batch, greeks}, c);
                   },
                   [](std::size_t, const family_run&, trade_result&) {}, true};
  if constexpr (has_greeks<Family>) {
    if (greeks) {
      task.finish = [&batch](std::size_t k, const family_run& run, trade_result& r) {
        r.greeks = Family::greeks_of(batch, k, run.outcomes[k]);
      };
    }
  }
  return task;
}

// American and Bermudan trades: worth more exercised today than their continuation, they are.
template <typename Real>
family_task exercise_task(const basic_exercise_rows<Real>& rows, const pricing_backend& backend, bool greeks)
{
  return {&rows,
          [&backend, &rows](const run_control& c) {
            return backend.run_early_exercise(
                rows.f, [&rows] { return rows.with_greeks(); }, c);
          },
          [&rows, greeks](std::size_t k, const family_run& run, trade_result& r) {
            bool const today =
                exercise_today_if_better(r, rows.exercise_today[k], run.outcomes[k].continuation_today, rows.scales[k]);
            if (greeks) r.greeks = rows.greeks_of(k, run, today);
          },
          false};
}

// Runs the chunk's families, side by side on the GPU (each a request of its own on the shared
// stream pool), so one family's kernels fill the GPU while another's are planned, uploaded or
// collected. The families are claimed by this thread and the kept threads alike: a small
// request's second family does not wait for a helper to wake (50-150 us on the GPU host, more
// than its whole GPU work), and a large chunk's families still run side by side. Waits for all
// of them, then rethrows the first failure.
std::vector<family_run> run_tasks(const call_state& call, const std::vector<family_task>& tasks, std::size_t chunk)
{
  // A pipelined chunk announces how many of its families queue GPU work in chunk order (the
  // early-exercise family's calibration and pricing requests are not ordered).
  bool const ordered = call.order != nullptr;
  if (ordered) {
    auto const in_order = std::count_if(tasks.begin(), tasks.end(), [](auto const& task) { return task.ordered; });
    call.order->expect(chunk, static_cast<std::size_t>(in_order));
  }
  std::vector<run_control> controls(tasks.size());
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    run_control& control = controls[i];
    control.progress = call.progress.for_slot(chunk * families_per_chunk + i);
    control.cancel = call.cancel;
    control.timeline = call.timeline;
    control.chunk = chunk;
    control.spin_wait = !ordered || chunk + 2 >= call.chunks;
    control.alone = tasks.size() == 1 && call.chunks == 1;
    if (ordered && tasks[i].ordered) {
      control.max_jobs = pipelined_jobs_per_family;
      control.wait_turn = [order = call.order, chunk] { order->wait_turn(chunk); };
      control.submitted = [order = call.order, chunk] { order->submitted(chunk); };
    }
  }
  std::vector<family_run> outcomes(tasks.size());
  auto run = [&](std::size_t i) { outcomes[i] = tasks[i].run(controls[i]); };
  if (call.backend.kind() == backend_kind::gpu) {
    claim_each(call.threads, tasks.size(), run);
    return outcomes;
  }
  // On the CPU each family uses every core already: one after another on this thread, every one
  // run even after a failure (each reports its own trades), the first failure rethrown.
  std::exception_ptr failure;
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    try {
      run(i);
    } catch (...) {
      if (!failure) failure = std::current_exception();
    }
  }
  if (failure) std::rethrow_exception(failure);
  return outcomes;
}

// A family's trades' rows of results from their sums (several threads on large books).
void write_results(const call_state& call, const family_task& task, const family_run& outcome)
{
  parallel_for(
      call.threads, task.rows->rows.size(),
      [&](std::size_t k) {
        std::size_t const row = task.rows->rows[k];
        trade_result& r = call.results[row];
        const std::string& id = call.book.trades[row].id;
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
        r = make_result(id, o.sums, task.rows->samples[k], task.rows->paths[k], task.rows->scales[k]);
        if (!o.tally.empty()) r.redemption = redemption_of(o.tally, call.book.trades[row].observation_times);
        task.finish(k, outcome, r);
      },
      call.results_per_thread);
}

}  // namespace

chunk_timing price_families(const call_state& call, const request_families& f, std::size_t chunk, std::size_t begin,
                            std::size_t end)
{
  auto const start = std::chrono::steady_clock::now();
  // A pipelined chunk that fails before all its families have reported gives up its turn, so the
  // chunks behind it go on (reports after that are ignored).
  struct turn_guard {
    submission_order* order;
    std::size_t chunk;
    bool reported{false};
    ~turn_guard()
    {
      if (order == nullptr || reported) return;
      try {
        order->abandon(chunk);
      } catch (...) {
        // Out of memory marking the chunk: nothing better is left to do here.
      }
    }
  } guard{call.order, chunk};
  std::vector<family_task> tasks;
  for_each_batch(f.priced, [&](const auto& batch) {
    if (!batch.empty()) tasks.push_back(task_of(batch, call.backend, call.greeks));
  });
  if (!f.exercises.f.trades.empty()) tasks.push_back(exercise_task(f.exercises, call.backend, call.greeks));
  if (!f.double_exercises.f.trades.empty())
    tasks.push_back(exercise_task(f.double_exercises, call.backend, call.greeks));
  std::vector<family_run> const outcomes = run_tasks(call, tasks, chunk);
  guard.reported = true;
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
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    timing.jobs += outcomes[i].jobs;
    write_results(call, tasks[i], outcomes[i]);
  }
  for (std::size_t i = begin; i < end; ++i) timing.add(results[i], call.greeks);
  auto const done = std::chrono::steady_clock::now();
  timing.results_seconds = std::chrono::duration<double>(done - collected).count();
  if (call.timeline != nullptr) {
    call.timeline->add({"results", chunk, 0, call.timeline->seconds(collected), call.timeline->seconds(done), false});
  }
  return timing;
}

}  // namespace mcprice::detail
