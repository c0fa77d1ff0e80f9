#include "mcprice/work_split.hpp"

#include "early_exercise_setup.hpp"
#include "trade_validation.hpp"

#include <algorithm>
#include <numeric>
#include <queue>
#include <utility>

namespace mcprice {

namespace {

bool any_heston(const trade& t, const market_data& market)
{
  return std::any_of(t.underlyings.begin(), t.underlyings.end(), [&](const std::string& name) {
    auto const a = market.find(name);
    return a && market.assets()[*a].model == model_kind::heston;
  });
}

}  // namespace

double estimated_cost(const trade& t, const market_data& market, const engine_options& options)
{
  if (!t.row_error.empty()) return 1.0;
  double const paths = static_cast<double>(t.paths.value_or(options.paths));
  double const assets = static_cast<double>(std::max<std::size_t>(1, t.underlyings.size()));
  double const steps = static_cast<double>(std::max<std::int64_t>(1, t.steps.value_or(options.steps)));
  bool const heston = any_heston(t, market);
  bool const terminal = t.product == product_kind::vanilla || t.product == product_kind::digital ||
                        detail::multi_asset(t.product);
  if (t.exercise != exercise_style::european) {
    // The calibration's paths are walked too, and each date's regression costs about a step.
    double const calibration = static_cast<double>(
        options.calibration_paths > 0 ? options.calibration_paths
                                      : std::min<std::int64_t>(t.paths.value_or(options.paths),
                                                               detail::default_max_calibration_paths));
    return (paths + 2.0 * calibration) * steps * assets * (heston ? 2.0 : 1.0);
  }
  // A European GBM trade steps once to maturity whatever the grid; Heston steps its variance.
  double const path_steps = terminal && !heston ? 1.0 : steps;
  return paths * path_steps * assets * (heston ? 2.0 : 1.0);
}

std::vector<std::vector<std::size_t>> split_by_cost(const portfolio& book, const market_data& market,
                                                    const engine_options& options, std::size_t parts)
{
  parts = std::max<std::size_t>(parts, 1);
  std::size_t const n = book.trades.size();
  std::vector<double> cost(n);
  for (std::size_t i = 0; i < n; ++i) cost[i] = estimated_cost(book.trades[i], market, options);
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return cost[a] > cost[b]; });

  // (load, part): the least loaded part on top, ties to the lowest part.
  using load = std::pair<double, std::size_t>;
  std::priority_queue<load, std::vector<load>, std::greater<>> least;
  for (std::size_t p = 0; p < parts; ++p) least.push({0.0, p});
  std::vector<std::vector<std::size_t>> out(parts);
  for (std::size_t const i : order) {
    auto [so_far, p] = least.top();
    least.pop();
    out[p].push_back(i);
    least.push({so_far + cost[i], p});
  }
  for (auto& part : out) std::sort(part.begin(), part.end());
  return out;
}

portfolio select_trades(const portfolio& book, const std::vector<std::size_t>& indices)
{
  portfolio out;
  out.source = book.source;
  out.trades.reserve(indices.size());
  for (std::size_t const i : indices) out.trades.push_back(book.trades.at(i));
  return out;
}

pricing_run merge_parts(std::vector<pricing_run> parts, const std::vector<std::vector<std::size_t>>& indices,
                        std::size_t trades)
{
  pricing_run run;
  run.results.resize(trades);
  run_summary& s = run.summary;
  for (std::size_t k = 0; k < parts.size(); ++k) {
    pricing_run& part = parts[k];
    auto const& where = indices.at(k);
    for (std::size_t j = 0; j < part.results.size(); ++j) run.results.at(where.at(j)) = std::move(part.results[j]);
    run_summary const& p = part.summary;
    s.trades += p.trades;
    s.failed += p.failed;
    s.cancelled += p.cancelled;
    s.paths += p.paths;
    s.wall_seconds = std::max(s.wall_seconds, p.wall_seconds);
    if (k == 0) {
      s.backend = p.backend;
      s.device_name = p.device_name;
      s.greeks = p.greeks;
    }
    s.prepare_seconds += p.prepare_seconds;
    s.price_seconds += p.price_seconds;
    s.results_seconds += p.results_seconds;
    s.jobs += p.jobs;
    s.chunks = k == 0 ? p.chunks : s.chunks + p.chunks;
    s.without_greeks += p.without_greeks;
    for (timeline_span span : p.timeline) {
      span.part = k;
      s.timeline.push_back(std::move(span));
    }
  }
  std::stable_sort(s.timeline.begin(), s.timeline.end(),
                   [](const timeline_span& a, const timeline_span& b) { return a.begin_seconds < b.begin_seconds; });
  return run;
}

}  // namespace mcprice
