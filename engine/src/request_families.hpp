#pragma once
// A chunk of a request prepared for the backends: its trades checked and turned into kernel
// records, by kernel family, with what turns each family's sums into results.
#include "early_exercise_setup.hpp"
#include "exercise_family.hpp"
#include "exercise_greeks.hpp"
#include "greek_statistics.hpp"
#include "mcprice/kernels/basket_gbm.hpp"
#include "mcprice/kernels/european_gbm.hpp"
#include "mcprice/kernels/heston_path.hpp"
#include "mcprice/kernels/path_gbm.hpp"
#include "mcprice/market.hpp"
#include "mcprice/portfolio.hpp"
#include "mcprice/settings.hpp"
#include "basket_setup.hpp"
#include "path_setup.hpp"
#include "pricing_backend.hpp"
#include "thread_cache.hpp"

#include <cstddef>
#include <cstdint>
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

// An American or Bermudan trade, with its Greek scenarios when Greeks are asked for.
struct exercise_work {
  exercise_job job;
  std::optional<exercise_greek_plan> greeks;
};

// American and Bermudan trades with their tables, what exercising today would pay, and their
// Greeks' combinations (combination range per trade).
struct exercise_rows : family_base {
  exercise_family f;
  std::vector<double> exercise_today;
  std::vector<std::optional<exercise_greek_plan>> greeks;
  std::vector<std::size_t> first_combination;

  void add_job(exercise_work& w, std::size_t row)
  {
    std::size_t const trade = f.trades.size();
    add_to_family(f, w.job);
    samples.push_back(w.job.kernel.samples);
    scales.push_back(w.job.scale);
    paths.push_back(w.job.paths);
    rows.push_back(row);
    exercise_today.push_back(w.job.exercise_today);
    first_combination.push_back(f.combinations.size());
    if (w.greeks) {
      // One growth of the tables for all scenarios: a book's family is built afresh per request.
      std::size_t steps = f.heston_steps.size();
      std::size_t gbm = f.gbm_steps.size();
      for (auto const& s : w.greeks->scenarios) {
        steps += s.heston_steps.size();
        gbm += s.gbm_steps.size();
      }
      f.heston_steps.reserve(steps);
      f.gbm_steps.reserve(gbm);
      std::vector<std::int32_t> scenario;
      for (auto const& s : w.greeks->scenarios) scenario.push_back(add_scenario(f, s, trade));
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
          auto const& leg = f.scenarios[static_cast<std::size_t>(c.scenario[k])];
          if (!same_decisions(f, f.scenarios[static_cast<std::size_t>(c.scenario[0])], leg)) c.shared_path = 0;
        }
        f.combinations.push_back(c);
      }
      group_spot_walks(f, first_combination.back(), f.combinations.size(),
                       walk_group_legs(f, first_combination.back(), f.combinations.size()));
      mark_variant_pairs(f, first_combination.back(), f.combinations.size());
      // The tables are in the family now; the plan keeps only what results need.
      for (auto& s : w.greeks->scenarios) s = {s.kernel, {}, {}, {}, {}, {}, s.scale, s.paths, s.exercise_today};
    }
    greeks.push_back(std::move(w.greeks));
  }

  // Trade k's Greeks from the run's combinations (none if any of them failed).
  [[nodiscard]] std::optional<trade_greeks> greeks_of(std::size_t k, const family_run& run, bool today) const
  {
    if (!greeks[k]) return std::nullopt;
    const exercise_greek_plan& plan = *greeks[k];
    if (today) return exercised_today_greeks(plan, scales[k]);
    std::vector<greek_estimate> values;
    for (std::size_t g = 0; g < plan.greeks.size(); ++g) {
      std::size_t const c = first_combination[k] + g;
      if (c >= run.combinations.size()) return std::nullopt;
      auto const& o = run.combinations[c];
      if (!o.error.empty() || o.cancelled) return std::nullopt;
      values.push_back(estimate(o.sums, samples[k], scales[k] / plan.greeks[g].denominator));
    }
    return assemble_exercise_greeks(plan, values);
  }
};

// The trades of one chunk of a request, by kernel family, with their tables.
struct request_families {
  family<european_gbm_trade> europeans;
  std::vector<greek_inputs> european_greeks;  // with Greeks: per european, in order
  path_family paths;           // with Greeks: Asians only
  path_family scenario_paths;  // with Greeks: barriers, touches and lookbacks (scenario lanes)
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
