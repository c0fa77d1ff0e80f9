#pragma once
// A chunk of a request prepared for the backends: its trades checked and turned into kernel
// records, by kernel family, with what turns each family's sums into results.
#include "products/basket_setup.hpp"
#include "products/early_exercise_setup.hpp"
#include "families/exercise_family.hpp"
#include "products/exercise_greeks.hpp"
#include "statistics/greek_statistics.hpp"
#include "mcprice/kernels/models/basket_gbm.hpp"
#include "mcprice/kernels/models/european_gbm.hpp"
#include "mcprice/kernels/models/heston_path.hpp"
#include "mcprice/kernels/models/path_gbm.hpp"
#include "mcprice/market.hpp"
#include "mcprice/portfolio.hpp"
#include "mcprice/settings.hpp"
#include "products/path_setup.hpp"
#include "backends/pricing_backend.hpp"
#include "runtime/thread_cache.hpp"

#include <cstddef>
#include <cstdint>
#include <future>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mcprice::detail {

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

// GBM path trades with their time grids (and with Greeks, the Greek grids parallel to them).
// Real: the path precision (double: --precision double, where GBM Europeans are path trades too).
template <typename Real>
struct basic_path_family : family<basic_path_gbm_trade<Real>> {
  std::vector<basic_path_step<Real>> grid;
  std::vector<path_greek_step> greek_grid;

  void add_job(basic_path_job<Real>& p, std::size_t row)
  {
    p.kernel.first_step = static_cast<std::int32_t>(grid.size());
    grid.insert(grid.end(), p.steps.begin(), p.steps.end());
    greek_grid.insert(greek_grid.end(), p.greek_steps.begin(), p.greek_steps.end());
    this->add(p.kernel, layout::blocks_for(p.kernel.samples, path_normals_per_sample), p.scale, p.paths, row);
  }
};
using path_family = basic_path_family<float>;

// Heston trades with every trade's steps in one table.
template <typename Real>
struct basic_heston_family : family<basic_heston_trade<Real>> {
  std::vector<basic_heston_step<Real>> steps;

  void add_job(basic_heston_job<Real>& h, std::size_t row)
  {
    h.kernel.first_step = static_cast<std::int32_t>(steps.size());
    steps.insert(steps.end(), h.steps.begin(), h.steps.end());
    this->add(h.kernel, layout::blocks_for(h.kernel.samples, path_normals_per_sample), h.scale, h.paths, row);
  }
};

// Multi-asset Europeans with their per-asset parameters and correlation factors.
template <typename Real>
struct basic_basket_family : family<basic_basket_gbm_trade<Real>> {
  std::vector<basic_basket_asset<Real>> assets;
  std::vector<Real> factors;

  void add_job(basic_basket_job<Real>& b, std::size_t row)
  {
    b.kernel.first_asset = static_cast<std::int32_t>(assets.size());
    b.kernel.first_factor = static_cast<std::int32_t>(factors.size());
    assets.insert(assets.end(), b.assets.begin(), b.assets.end());
    factors.insert(factors.end(), b.factor.begin(), b.factor.end());
    this->add(b.kernel, layout::blocks_for(b.kernel.samples, basket_normals_per_sample), b.scale, b.paths, row);
  }
};

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

// American and Bermudan trades with their tables and what exercising today would pay. With
// Greeks, the Greek book is built on a kept thread from the end of the preparation: the
// backend's calibration needs only the trades' tables, so the host builds the scenarios (some
// 20,000 Heston steps for a 5-asset STAC-A2-style trade) while the GPU calibrates.
struct exercise_rows : family_base {
  exercise_family f;  // the trades alone
  std::vector<double> exercise_today;

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

  void add_job(const exercise_job& j, std::size_t row)
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

// The trades of one chunk of a request, by kernel family, with their tables.
struct request_families {
  family<european_gbm_trade> europeans;
  std::vector<greek_inputs> european_greeks;  // with Greeks: per european, in order
  path_family paths;                          // with Greeks: Asians only
  path_family scenario_paths;                 // with Greeks: barriers, touches and lookbacks (scenario lanes)
  basic_basket_family<float> baskets;
  basic_heston_family<float> hestons;
  exercise_rows exercises;
  // --precision double: every trade is one of these (the float families stay empty).
  basic_path_family<double> double_paths;
  basic_heston_family<double> double_hestons;
  basic_basket_family<double> double_baskets;
  std::vector<std::pair<std::size_t, std::string>> rejected;  // rows the checks refused, and why
};

// Checks rows [begin, end) and builds their kernel records (independent per trade: several
// threads on large books, trades_per_thread each), then numbers their blocks in input order,
// per family. The results are not touched: a pipeline's first chunk is prepared while they are
// still being allocated.
request_families prepare_rows(const portfolio& trades, std::size_t begin, std::size_t end, const market_data& market,
                              const engine_options& options, thread_cache& threads, std::size_t trades_per_thread);

}  // namespace mcprice::detail
