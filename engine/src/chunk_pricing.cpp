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
  bool const greeks = call.greeks;
  const pricing_backend& backend = call.backend;
  constexpr std::size_t families = 9;
  std::vector<std::pair<const family_base*, std::function<family_run(const run_control&)>>> runs;
  if (!f.europeans.trades.empty()) {
    runs.emplace_back(&f.europeans, [&](const run_control& p) {
      if (greeks) return backend.run_european_greeks(f.europeans.trades, f.europeans.blocks, p);
      return backend.run_european(f.europeans.trades, f.europeans.blocks, p);
    });
  }
  for (const path_family* fam : {&f.paths, &f.scenario_paths}) {
    if (fam->trades.empty()) continue;
    bool const scenario_lanes = fam == &f.scenario_paths;
    runs.emplace_back(fam, [&backend, fam, greeks, scenario_lanes](const run_control& p) {
      if (greeks)
        return backend.run_path_greeks(fam->trades, fam->grid, fam->greek_grid, fam->blocks, scenario_lanes, p);
      return backend.run_path(fam->trades, fam->grid, fam->blocks, p);
    });
  }
  if (!f.hestons.trades.empty()) {
    runs.emplace_back(&f.hestons, [&](const run_control& p) {
      if (greeks) return backend.run_heston_greeks(f.hestons.trades, f.hestons.steps, f.hestons.blocks, p);
      return backend.run_heston(f.hestons.trades, f.hestons.steps, f.hestons.blocks, p);
    });
  }
  // --precision double (no Greeks: the engine refuses them there).
  if (!f.double_paths.trades.empty()) {
    runs.emplace_back(&f.double_paths, [&](const run_control& p) {
      return backend.run_path(f.double_paths.trades, f.double_paths.grid, f.double_paths.blocks, p);
    });
  }
  if (!f.double_hestons.trades.empty()) {
    runs.emplace_back(&f.double_hestons, [&](const run_control& p) {
      return backend.run_heston(f.double_hestons.trades, f.double_hestons.steps, f.double_hestons.blocks, p);
    });
  }
  if (!f.double_baskets.trades.empty()) {
    runs.emplace_back(&f.double_baskets, [&](const run_control& p) {
      auto const& b = f.double_baskets;
      return backend.run_basket(b.trades, b.assets, b.factors, b.blocks, p);
    });
  }
  if (!f.baskets.trades.empty()) {
    runs.emplace_back(&f.baskets, [&](const run_control& p) {
      if (greeks)
        return backend.run_basket_greeks(f.baskets.trades, f.baskets.assets, f.baskets.factors, f.baskets.blocks, p);
      return backend.run_basket(f.baskets.trades, f.baskets.assets, f.baskets.factors, f.baskets.blocks, p);
    });
  }
  if (!f.exercises.f.trades.empty()) {
    runs.emplace_back(&f.exercises, [&](const run_control& p) {
      return backend.run_early_exercise(
          f.exercises.f, [&] { return f.exercises.with_greeks(); }, p);
    });
  }
  // A pipelined chunk announces how many of its families queue GPU work in chunk order (the
  // early-exercise family's calibration and pricing requests are not ordered).
  bool const ordered = call.order != nullptr;
  if (ordered) {
    auto const in_order =
        std::count_if(runs.begin(), runs.end(), [&](auto const& r) { return r.first != &f.exercises; });
    call.order->expect(chunk, static_cast<std::size_t>(in_order));
  }
  bool const side_by_side = backend.kind() == backend_kind::gpu;
  std::vector<std::future<family_run>> pending;
  std::vector<std::pair<const family_base*, family_run>> outcomes(runs.size());
  try {
    for (std::size_t i = 0; i < runs.size(); ++i) {
      run_control control;
      control.progress = call.progress.for_slot(chunk * families + i);
      control.cancel = call.cancel;
      control.timeline = call.timeline;
      control.chunk = chunk;
      control.spin_wait = !ordered || chunk + 2 >= call.chunks;
      if (ordered && runs[i].first != &f.exercises) {
        control.max_jobs = pipelined_jobs_per_family;
        control.wait_turn = [order = call.order, chunk] { order->wait_turn(chunk); };
        control.submitted = [order = call.order, chunk] { order->submitted(chunk); };
      }
      // The last family runs on this thread; on the CPU each family uses every core already.
      auto run = [fn = runs[i].second, control = std::move(control)] { return fn(control); };
      if (side_by_side && i + 1 < runs.size()) pending.push_back(call.threads.run(std::move(run)));
      else pending.push_back(std::async(std::launch::deferred, std::move(run)));
    }
  } catch (...) {
    wait_all(pending, [](std::size_t, const family_run&) {});  // they share this frame
    throw;
  }
  wait_all(pending, [&](std::size_t i, family_run r) { outcomes[i] = {runs[i].first, std::move(r)}; });
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
  for (auto const& [fam, outcome] : outcomes) {
    timing.jobs += outcome.jobs;
    parallel_for(
        call.threads, fam->rows.size(),
        [&, fam = fam](std::size_t k) {
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
          r = make_result(id, o.sums, fam->samples[k], fam->paths[k], fam->scales[k]);
          if (fam == &f.exercises) {
            bool const today =
                exercise_today_if_better(r, f.exercises.exercise_today[k], o.continuation_today, fam->scales[k]);
            if (greeks) r.greeks = f.exercises.greeks_of(k, outcome, today);
          }
          if (greeks && fam == &f.europeans) {
            r.greeks =
                make_greeks(o.sums, o.greek_sums().greeks, fam->samples[k], fam->scales[k], f.european_greeks[k]);
          } else if (greeks && (fam == &f.paths || fam == &f.scenario_paths)) {
            r.greeks =
                make_path_greeks(o.greek_sums().path_greeks, fam->samples[k], fam->scales[k],
                                 fam == &f.paths ? greek_method::pathwise_bumped_gamma : greek_method::central_bumps);
          } else if (greeks && fam == &f.hestons) {
            r.greeks = make_path_greeks(o.greek_sums().path_greeks, fam->samples[k], fam->scales[k],
                                        greek_method::central_bumps);
          } else if (greeks && fam == &f.baskets && f.baskets.trades[k].greeks) {
            r.greeks = make_basket_greeks(o.greek_sums().basket_greeks, f.baskets.trades[k].assets, fam->samples[k],
                                          fam->scales[k]);
          }
        },
        call.results_per_thread);
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

}  // namespace mcprice::detail
