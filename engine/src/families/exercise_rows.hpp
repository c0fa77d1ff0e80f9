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
// results need of each trade's plan. Real: the path precision.
template <typename Real>
struct basic_exercise_greek_book {
  basic_packed_exercise_family<Real> family;
  std::vector<std::optional<basic_exercise_greek_plan<Real>>> plans;  // per trade
  std::vector<std::size_t> first_combination;                         // per trade: its combinations start here
};
using exercise_greek_book = basic_exercise_greek_book<float>;

// Builds the book for `trades` (a trade each of base's; its Greeks' bumps come from `market`),
// plans on several threads, then tables in trade order.
template <typename Real>
basic_exercise_greek_book<Real> make_exercise_greek_book(basic_exercise_family<Real> base,
                                                         const std::vector<trade>& trades, const market_data& market,
                                                         const engine_options& options, thread_cache& threads);

// American and Bermudan trades with their tables and what exercising today would pay, in the
// path precision Real (float; double under --precision double).
// With Greeks, the Greek book is built on a kept thread from the end of the preparation: the
// backend's calibration needs only the trades' tables, so the host builds the scenarios (some
// 20,000 Heston steps for a 5-asset STAC-A2-style trade) while the GPU calibrates.
template <typename Real>
struct basic_exercise_rows : family_rows {
  basic_exercise_family<Real> f;  // the trades alone
  std::vector<double> exercise_today;

  basic_exercise_rows() = default;
  basic_exercise_rows(basic_exercise_rows&&) = default;
  basic_exercise_rows& operator=(basic_exercise_rows&&) = delete;
  basic_exercise_rows(const basic_exercise_rows&) = delete;
  basic_exercise_rows& operator=(const basic_exercise_rows&) = delete;
  // The book's task refers only to what it was given (copies, the engine's market, options and
  // threads), but the engine may go once its call returns: nothing outlives the rows.
  ~basic_exercise_rows()
  {
    if (book_.valid()) book_.wait();
  }

  void add_job(const basic_exercise_job<Real>& j, std::size_t row)
  {
    add_to_family(f, j);
    samples.push_back(j.kernel.samples);
    scales.push_back(j.scale);
    paths.push_back(j.paths);
    rows.push_back(row);
    exercise_today.push_back(j.exercise_today);
  }

  // Starts the Greek book of every trade (`trades`: the rows' trades, in order).
  void start_greeks(std::vector<trade> trades, const market_data& market, const engine_options& options,
                    thread_cache& threads);

  // The family with the Greeks' scenarios and combinations (waits for it), or none.
  [[nodiscard]] const basic_packed_exercise_family<Real>* with_greeks() const
  {
    return book_.valid() ? &book_.get().family : nullptr;
  }

  // Trade k's Greeks from the run's combinations (none if any of them failed).
  [[nodiscard]] std::optional<trade_greeks> greeks_of(std::size_t k, const family_run& run, bool today) const;

 private:
  std::shared_future<basic_exercise_greek_book<Real>> book_;
};
using exercise_rows = basic_exercise_rows<float>;
using double_exercise_rows = basic_exercise_rows<double>;

}  // namespace mcprice::detail
