#include "families/request_families.hpp"

#include "products/basket_setup.hpp"
#include "products/european_setup.hpp"
#include "runtime/parallel_for.hpp"
#include "products/trade_validation.hpp"

#include <memory>
#include <variant>

namespace mcprice::detail {
namespace {

// Early-exercise work is boxed: it is twice the size of the others, and a chunk's jobs are
// fresh memory every call (first touching a page cost 1-3 us on the GPU host). Double-precision
// jobs are boxed too: unboxed, they would widen every float job's slot by a third.
using trade_job =
    std::variant<european_job, path_job, basket_job, heston_job, std::unique_ptr<exercise_job>,
                 std::unique_ptr<path_job_f64>, std::unique_ptr<heston_job_f64>, std::unique_ptr<basket_job_f64>>;

template <typename Job>
trade_job boxed(Job job)
{
  return std::make_unique<Job>(std::move(job));
}

// --precision double: European-exercise products, under GBM (GBM vanillas and digitals as
// one-step paths; multi-asset products on GBM assets) and single-asset under Heston; the rest
// is refused with the reason.
std::optional<trade_job> build_double(const trade& t, const asset& a, bool heston_basket, std::string& message,
                                      const market_data& market, const engine_options& options)
{
  if (t.exercise != exercise_style::european) {
    message = "trade " + t.id + ": --precision double prices European exercise only; " +
              std::string(to_string(t.exercise)) + " exercise (least squares) is in float";
    return std::nullopt;
  }
  if (heston_basket) {
    message = "trade " + t.id +
              ": --precision double prices multi-asset products on GBM assets only; on Heston assets they are in float";
    return std::nullopt;
  }
  if (multi_asset(t.product)) return boxed(make_basket_job<double>(t, market, options));
  if (a.model == model_kind::heston) return boxed(make_heston_job<double>(t, a, market, options));
  return boxed(make_path_job<double>(t, a, market, options));
}

// Fills `message` (why the trade cannot be priced) or returns the trade's kernel work.
std::optional<trade_job> check_and_build(const trade& t, std::string& message, const market_data& market,
                                         const engine_options& options)
{
  message = t.row_error;
  std::size_t first_underlying = 0;  // found by the checks: the one market lookup of a vanilla
  if (message.empty()) message = validate_trade(t, market, &first_underlying);
  if (message.empty() && t.paths && *t.paths > max_paths_per_trade) {
    message = "trade " + t.id + ": paths " + std::to_string(*t.paths) + " exceeds the limit " +
              std::to_string(max_paths_per_trade);
  }
  if (message.empty()) message = unsupported_feature(t, market);
  if (!message.empty()) return std::nullopt;
  bool const heston_basket = multi_asset(t.product) && market.assets()[first_underlying].model == model_kind::heston;
  if (options.precision == path_precision::float64) {
    return build_double(t, market.assets()[first_underlying], heston_basket, message, market, options);
  }
  if (t.exercise != exercise_style::european || heston_basket) {
    return boxed(make_exercise_job(t, market, options));
  }
  const asset& a = market.assets()[first_underlying];
  if (a.model == model_kind::heston) return make_heston_job<float>(t, a, market, options);
  switch (t.product) {
    case product_kind::vanilla:
    case product_kind::digital:
      return make_european_job(t, a, market, options);
    case product_kind::basket:
    case product_kind::best_of:
    case product_kind::worst_of:
    case product_kind::spread:
      return make_basket_job<float>(t, market, options);
    default:
      return make_path_job<float>(t, a, market, options);
  }
}

}  // namespace

request_families prepare_rows(const portfolio& trades, std::size_t begin, std::size_t end, const market_data& market,
                              const engine_options& options, thread_cache& threads, std::size_t trades_per_thread)
{
  std::vector<std::optional<trade_job>> jobs(end - begin);
  std::vector<std::string> messages(end - begin);
  parallel_for(
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
    if (auto* e = std::get_if<european_job>(&*jobs[k])) {
      f.europeans.add(e->kernel, layout::blocks_for(e->kernel.samples, european_normals_per_sample), e->scale, e->paths,
                      i);
      if (options.greeks) f.european_greeks.push_back(e->greeks);
    } else if (auto* h = std::get_if<heston_job>(&*jobs[k])) {
      f.hestons.add_job(*h, i);
    } else if (auto* dp = std::get_if<std::unique_ptr<path_job_f64>>(&*jobs[k])) {
      f.double_paths.add_job(**dp, i);
    } else if (auto* dh = std::get_if<std::unique_ptr<heston_job_f64>>(&*jobs[k])) {
      f.double_hestons.add_job(**dh, i);
    } else if (auto* x = std::get_if<std::unique_ptr<exercise_job>>(&*jobs[k])) {
      f.exercises.add_job(**x, i);
    } else if (auto* b = std::get_if<basket_job>(&*jobs[k])) {
      f.baskets.add_job(*b, i);
    } else if (auto* db = std::get_if<std::unique_ptr<basket_job_f64>>(&*jobs[k])) {
      f.double_baskets.add_job(**db, i);
    } else {
      auto& p = std::get<path_job>(*jobs[k]);
      bool const scenario_lanes = options.greeks && p.kernel.product != path_product::asian;
      (scenario_lanes ? f.scenario_paths : f.paths).add_job(p, i);
    }
  }
  if (options.greeks && !f.exercises.f.trades.empty()) {
    std::vector<trade> exercised;
    for (std::size_t const row : f.exercises.rows) exercised.push_back(trades.trades[row]);
    f.exercises.start_greeks(std::move(exercised), market, options, threads);
  }
  return f;
}

namespace {

// Trade `trade`'s scenarios and combinations appended to the family.
void add_greeks(exercise_family& f, std::size_t trade, exercise_greek_plan& plan)
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
  for (auto& s : plan.scenarios) s = {s.kernel, {}, {}, {}, {}, {}, s.scale, s.paths, s.exercise_today};
}

}  // namespace

exercise_greek_book make_exercise_greek_book(exercise_family base, const std::vector<trade>& trades,
                                             const market_data& market, const engine_options& options,
                                             thread_cache& threads)
{
  exercise_greek_book book{{}, std::vector<std::optional<exercise_greek_plan>>(trades.size()), {}};
  parallel_for(
      threads, trades.size(), [&](std::size_t k) { book.plans[k] = make_exercise_greeks(trades[k], market, options); },
      1);
  for (std::size_t k = 0; k < trades.size(); ++k) {
    book.first_combination.push_back(base.combinations.size());
    add_greeks(base, k, *book.plans[k]);
  }
  book.family = packed(std::move(base));
  return book;
}

void exercise_rows::start_greeks(std::vector<trade> trades, const market_data& market, const engine_options& options,
                                 thread_cache& threads)
{
  book_ = threads
              .run([base = f, trades = std::move(trades), &market, &options, &threads]() mutable {
                return make_exercise_greek_book(std::move(base), trades, market, options, threads);
              })
              .share();
}

}  // namespace mcprice::detail
