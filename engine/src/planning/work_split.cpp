#include "mcprice/work_split.hpp"

#include "products/early_exercise_setup.hpp"
#include "products/trade_validation.hpp"

#include <algorithm>
#include <iterator>
#include <stdexcept>
#include <string>
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
  bool const terminal =
      t.product == product_kind::vanilla || t.product == product_kind::digital || detail::multi_asset(t.product);
  if (t.exercise != exercise_style::european) {
    // The calibration's paths are walked too, and each date's regression costs about a step.
    double const calibration = static_cast<double>(
        options.calibration_paths > 0
            ? options.calibration_paths
            : std::min<std::int64_t>(t.paths.value_or(options.paths), detail::default_max_calibration_paths));
    return (paths + 2.0 * calibration) * steps * assets * (heston ? 2.0 : 1.0);
  }
  // A European GBM trade steps once to maturity whatever the grid; Heston steps its variance.
  double const path_steps = terminal && !heston ? 1.0 : steps;
  return paths * path_steps * assets * (heston ? 2.0 : 1.0);
}

std::vector<trade_range> split_by_cost(const portfolio& book, const market_data& market, const engine_options& options,
                                       std::size_t parts)
{
  parts = std::max<std::size_t>(parts, 1);
  std::size_t const n = book.trades.size();
  std::vector<double> before(n + 1, 0.0);  // cost of trades [0, i)
  for (std::size_t i = 0; i < n; ++i) before[i + 1] = before[i] + estimated_cost(book.trades[i], market, options);
  double const total = before[n];
  std::vector<trade_range> out;
  std::size_t from = 0;
  for (std::size_t k = 0; k < parts; ++k) {
    std::size_t to = n;
    if (k + 1 < parts) {
      double const target = total * static_cast<double>(k + 1) / static_cast<double>(parts);
      to = static_cast<std::size_t>(
          std::lower_bound(before.begin() + static_cast<std::ptrdiff_t>(from), before.end(), target) - before.begin());
      to = std::min(to, n);
      // The cut before or after the trade that crosses the target, whichever lands nearer.
      if (to > from && target - before[to - 1] < before[to] - target) --to;
    }
    out.push_back({from, to});
    from = to;
  }
  return out;
}

portfolio select_trades(const portfolio& book, trade_range range)
{
  portfolio out;
  out.source = book.source;
  out.trades.assign(book.trades.begin() + static_cast<std::ptrdiff_t>(range.begin),
                    book.trades.begin() + static_cast<std::ptrdiff_t>(range.end));
  return out;
}

run_summary merge_summaries(const std::vector<run_summary>& parts)
{
  run_summary s;
  std::vector<std::string> models;  // GPUs of several models: each named once
  for (std::size_t k = 0; k < parts.size(); ++k) {
    run_summary const& p = parts[k];
    s.trades += p.trades;
    s.failed += p.failed;
    s.cancelled += p.cancelled;
    s.paths += p.paths;
    s.wall_seconds = std::max(s.wall_seconds, p.wall_seconds);
    if (std::find(models.begin(), models.end(), p.device_name) == models.end()) {
      s.device_name += (models.empty() ? "" : ", ") + p.device_name;
      models.push_back(p.device_name);
    }
    if (k == 0) {
      s.backend = p.backend;
      s.greeks = p.greeks;
      s.chunks = 0;
      s.devices = 0;
    }
    s.devices += p.devices;
    s.prepare_seconds += p.prepare_seconds;
    s.price_seconds += p.price_seconds;
    s.results_seconds += p.results_seconds;
    s.jobs += p.jobs;
    s.chunks += p.chunks;
    s.without_greeks += p.without_greeks;
    for (timeline_span span : p.timeline) {
      span.part = k;
      s.timeline.push_back(std::move(span));
    }
  }
  std::stable_sort(s.timeline.begin(), s.timeline.end(),
                   [](const timeline_span& a, const timeline_span& b) { return a.begin_seconds < b.begin_seconds; });
  return s;
}

pricing_run merge_parts(std::vector<pricing_run> parts, const std::vector<trade_range>& ranges, std::size_t trades)
{
  pricing_run run;
  run.results.reserve(trades);
  std::vector<run_summary> summaries;
  for (std::size_t k = 0; k < parts.size(); ++k) {
    if (parts[k].results.size() != ranges.at(k).size() || run.results.size() != ranges[k].begin) {
      throw std::logic_error("merge_parts: part " + std::to_string(k) + " does not hold its range's results");
    }
    std::move(parts[k].results.begin(), parts[k].results.end(), std::back_inserter(run.results));
    summaries.push_back(std::move(parts[k].summary));
  }
  if (run.results.size() != trades) throw std::logic_error("merge_parts: the parts do not cover the book");
  run.summary = merge_summaries(summaries);
  return run;
}

}  // namespace mcprice
