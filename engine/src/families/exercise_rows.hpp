#pragma once
// The early-exercise trades of a chunk (American and Bermudan, priced by least squares): the
// family's trades with their tables and what exercising today pays; with Greeks, the Greek book
// (every trade's scenarios and combinations) built on a kept thread while the GPU calibrates.
#include "backends/family_run.hpp"
#include "families/exercise_family.hpp"
#include "families/family_batch.hpp"
#include "mcprice/market.hpp"
#include "mcprice/portfolio.hpp"
#include "mcprice/settings.hpp"
#include "products/early_exercise_setup.hpp"
#include "products/exercise_greeks.hpp"
#include "runtime/thread_cache.hpp"
#include "statistics/greek_statistics.hpp"
#include "statistics/result_statistics.hpp"

#include <cstddef>
#include <future>
#include <optional>
#include <vector>

namespace mcprice::detail {

// The Greeks of a request's American and Bermudan trades: a copy of the trades' family with
// every trade's Greek scenarios (tables) and combinations added, packed for upload, and what
// results need of each trade's plan.
struct exercise_greek_book {
  packed_exercise_family family;
  std::vector<std::optional<exercise_greek_plan>> plans;  // per trade
  std::vector<std::size_t> first_combination;             // per trade: its combinations start here
};

// Builds the book for `trades` (a trade each of base's; its Greeks' bumps come from `market`),
// plans on several threads, then tables in trade order.
exercise_greek_book make_exercise_greek_book(exercise_family base, const std::vector<trade>& trades,
                                             const market_data& market, const engine_options& options,
                                             thread_cache& threads);

// American and Bermudan trades with their tables and what exercising today would pay, in the
// path precision Real (--precision double: double_exercise_rows, which has no Greeks).
template <typename Real>
struct basic_exercise_rows : family_rows {
  basic_exercise_family<Real> f;  // the trades alone
  std::vector<double> exercise_today;

  void add_job(const basic_exercise_job<Real>& j, std::size_t row)
  {
    add_to_family(f, j);
    samples.push_back(j.kernel.samples);
    scales.push_back(j.scale);
    paths.push_back(j.paths);
    rows.push_back(row);
    exercise_today.push_back(j.exercise_today);
  }
};
using double_exercise_rows = basic_exercise_rows<double>;

// With Greeks, the Greek book is built on a kept thread from the end of the preparation: the
// backend's calibration needs only the trades' tables, so the host builds the scenarios (some
// 20,000 Heston steps for a 5-asset STAC-A2-style trade) while the GPU calibrates.
struct exercise_rows : basic_exercise_rows<float> {
  exercise_rows() = default;
  exercise_rows(exercise_rows&&) = default;
  exercise_rows& operator=(exercise_rows&&) = delete;
  exercise_rows(const exercise_rows&) = delete;
  exercise_rows& operator=(const exercise_rows&) = delete;
  // The book's task refers only to what it was given (copies, the engine's market, options and
  // threads), but the engine may go once its call returns: nothing outlives the rows.
  ~exercise_rows()
  {
    if (book_.valid()) book_.wait();
  }

  // Starts the Greek book of every trade (`trades`: the rows' trades, in order).
  void start_greeks(std::vector<trade> trades, const market_data& market, const engine_options& options,
                    thread_cache& threads);

  // The family with the Greeks' scenarios and combinations (waits for it), or none.
  [[nodiscard]] const packed_exercise_family* with_greeks() const
  {
    return book_.valid() ? &book_.get().family : nullptr;
  }

  // Trade k's Greeks from the run's combinations (none if any of them failed).
  [[nodiscard]] std::optional<trade_greeks> greeks_of(std::size_t k, const family_run& run, bool today) const
  {
    if (!book_.valid()) return std::nullopt;
    const exercise_greek_book& book = book_.get();
    if (!book.plans[k]) return std::nullopt;
    const exercise_greek_plan& plan = *book.plans[k];
    if (today) return exercised_today_greeks(plan, scales[k]);
    std::vector<greek_estimate> values;
    for (std::size_t g = 0; g < plan.greeks.size(); ++g) {
      std::size_t const c = book.first_combination[k] + g;
      if (c >= run.combinations.size()) return std::nullopt;
      auto const& o = run.combinations[c];
      if (!o.error.empty() || o.cancelled) return std::nullopt;
      values.push_back(estimate(o.sums, samples[k], scales[k] / plan.greeks[g].denominator));
    }
    return assemble_exercise_greeks(plan, values);
  }

 private:
  std::shared_future<exercise_greek_book> book_;
};

}  // namespace mcprice::detail
