#include "families/exercise_rows.hpp"

#include "runtime/parallel_for.hpp"

#include <algorithm>
#include <utility>

namespace mcprice::detail {
namespace {

// Trade `trade`'s scenarios and combinations appended to the family.
template <typename Real>
void add_greeks(basic_exercise_family<Real>& f, std::size_t trade, basic_exercise_greek_plan<Real>& plan)
{
  std::size_t const first = f.combinations.size();
  // One growth of the tables for all scenarios.
  std::size_t steps = f.heston_steps.size();
  std::size_t gbm = f.gbm_steps.size();
  for (auto const& s : plan.scenarios) {
    steps += s.heston_steps.size();
    gbm += s.gbm_steps.size();
  }
  f.heston_steps.reserve(steps);
  f.gbm_steps.reserve(gbm);
  std::vector<std::int32_t> scenario;
  for (auto const& s : plan.scenarios) scenario.push_back(add_scenario(f, s, trade));
  std::int64_t const samples = f.trades[trade].samples;
  for (auto const& g : plan.greeks) {
    exercise_combination c{};
    c.samples = samples;
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
  group_spot_walks(f, first, f.combinations.size(), walk_group_legs(f, first, f.combinations.size()));
  mark_variant_pairs(f, first, f.combinations.size());
  // The tables are in the family now; the plan keeps only what results need.
  for (auto& s : plan.scenarios) s = {s.kernel, {}, {}, {}, {}, {}, s.scale, s.paths, s.exercise_today, false, {}, {}};
}

}  // namespace

template <typename Real>
basic_exercise_greek_book<Real> make_exercise_greek_book(basic_exercise_family<Real> base,
                                                         const std::vector<trade>& trades, const market_data& market,
                                                         const engine_options& options, thread_cache& threads)
{
  basic_exercise_greek_book<Real> book{
      {}, std::vector<std::optional<basic_exercise_greek_plan<Real>>>(trades.size()), {}};
  // Local-vol trades have none here: a spot bump would need the sticky-strike grids
  // (local_vol_greeks.hpp) in the walk.
  auto const on_local_vol = [&](const trade& t) {
    return std::any_of(t.underlyings.begin(), t.underlyings.end(), [&](const std::string& name) {
      return market.assets()[*market.find(name)].model == model_kind::local_vol;
    });
  };
  parallel_for(
      threads, trades.size(),
      [&](std::size_t k) {
        if (!on_local_vol(trades[k])) book.plans[k] = make_exercise_greeks<Real>(trades[k], market, options);
      },
      1);
  for (std::size_t k = 0; k < trades.size(); ++k) {
    book.first_combination.push_back(base.combinations.size());
    if (book.plans[k]) add_greeks(base, k, *book.plans[k]);
  }
  book.family = packed(std::move(base));
  return book;
}

template <typename Real>
void basic_exercise_rows<Real>::start_greeks(std::vector<trade> trades, const market_data& market,
                                             const engine_options& options, thread_cache& threads)
{
  book_ = threads
              .run([base = f, trades = std::move(trades), &market, &options, &threads]() mutable {
                return make_exercise_greek_book(std::move(base), trades, market, options, threads);
              })
              .share();
}

template <typename Real>
std::optional<trade_greeks> basic_exercise_rows<Real>::greeks_of(std::size_t k, const family_run& run, bool today) const
{
  if (!book_.valid()) return std::nullopt;
  const basic_exercise_greek_book<Real>& book = book_.get();
  if (!book.plans[k]) return std::nullopt;
  const basic_exercise_greek_plan<Real>& plan = *book.plans[k];
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

template struct basic_exercise_rows<float>;
template struct basic_exercise_rows<double>;

}  // namespace mcprice::detail
