#include "statistics/replicates.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <utility>
#include <vector>

namespace mcprice::detail {
namespace {

std::int64_t power_of_two_at_least(std::int64_t n)
{
  std::int64_t p = 1;
  while (p < n) p *= 2;
  return p;
}

// Mean and standard error of the mean of R values.
greek_estimate mean_of(const std::vector<double>& x)
{
  double const n = static_cast<double>(x.size());
  double mean = 0.0;
  for (double const v : x) mean += v;
  mean /= n;
  double sq = 0.0;
  for (double const v : x) sq += (v - mean) * (v - mean);
  return {mean, std::sqrt(sq / (n - 1.0) / n)};
}

template <typename Get>
greek_estimate over_replicates(const std::vector<const trade_result*>& rows, Get&& get)
{
  std::vector<double> x;
  x.reserve(rows.size());
  for (const trade_result* r : rows) x.push_back(get(*r).value);
  return mean_of(x);
}

template <typename Get>
std::vector<greek_estimate> over_replicates_each(const std::vector<const trade_result*>& rows, Get&& get)
{
  std::vector<greek_estimate> out(get(*rows.front()).size());
  for (std::size_t k = 0; k < out.size(); ++k) {
    out[k] = over_replicates(rows, [&](const trade_result& r) { return get(r)[k]; });
  }
  return out;
}

trade_greeks fold_greeks(const std::vector<const trade_result*>& rows)
{
  trade_greeks g = *rows.front()->greeks;
  g.delta = over_replicates(rows, [](const trade_result& r) { return r.greeks->delta; });
  g.gamma = over_replicates(rows, [](const trade_result& r) { return r.greeks->gamma; });
  g.vega = over_replicates(rows, [](const trade_result& r) { return r.greeks->vega; });
  g.theta = over_replicates(rows, [](const trade_result& r) { return r.greeks->theta; });
  g.rho = over_replicates(rows, [](const trade_result& r) { return r.greeks->rho; });
  g.correlation_vega = over_replicates(rows, [](const trade_result& r) { return r.greeks->correlation_vega; });
  g.deltas = over_replicates_each(rows, [](const trade_result& r) -> auto& { return r.greeks->deltas; });
  g.gammas = over_replicates_each(rows, [](const trade_result& r) -> auto& { return r.greeks->gammas; });
  g.vegas = over_replicates_each(rows, [](const trade_result& r) -> auto& { return r.greeks->vegas; });
  g.cross_gammas = over_replicates_each(rows, [](const trade_result& r) -> auto& { return r.greeks->cross_gammas; });
  return g;
}

// The replicates' redemption statistics, each the mean of theirs: every replicate has the same paths.
redemption_statistics fold_redemption(const std::vector<const trade_result*>& rows)
{
  redemption_statistics out;
  out.times = rows.front()->redemption->times;
  out.probabilities.assign(rows.front()->redemption->probabilities.size(), 0.0);
  auto const n = static_cast<double>(rows.size());
  for (const trade_result* r : rows) {
    const redemption_statistics& s = *r->redemption;
    for (std::size_t j = 0; j < out.probabilities.size() && j < s.probabilities.size(); ++j)
      out.probabilities[j] += s.probabilities[j] / n;
    out.expected_life += s.expected_life / n;
    out.knock_in_probability += s.knock_in_probability / n;
  }
  return out;
}

trade_result fold_trade(std::vector<trade_result>& results, std::size_t first, int replicates)
{
  std::vector<const trade_result*> rows;
  for (int r = 0; r < replicates; ++r) {
    trade_result& row = results[first + static_cast<std::size_t>(r)];
    // A failed or cancelled replicate is the trade's row (every replicate fails alike).
    if (row.status != trade_status::ok) return std::move(row);
    rows.push_back(&row);
  }
  trade_result out;
  out.id = rows.front()->id;
  out.status = trade_status::ok;
  greek_estimate const price = over_replicates(rows, [](const trade_result& r) { return greek_estimate{r.price, 0}; });
  out.price = price.value;
  out.std_error = price.std_error;
  double const half = student_t_975(replicates - 1) * price.std_error;
  out.ci_low = price.value - half;
  out.ci_high = price.value + half;
  for (const trade_result* r : rows) out.paths += r->paths;
  bool const greeks = std::all_of(rows.begin(), rows.end(), [](const trade_result* r) { return r->greeks.has_value(); });
  if (greeks) out.greeks = fold_greeks(rows);
  if (rows.front()->redemption) out.redemption = fold_redemption(rows);
  return out;
}

}  // namespace

std::int64_t replicate_paths(std::int64_t requested, int replicates, bool antithetic)
{
  std::int64_t const per = (requested + replicates - 1) / replicates;
  if (!antithetic) return power_of_two_at_least(per);
  return 2 * power_of_two_at_least((per + 1) / 2);
}

portfolio replicate_book(const portfolio& book, const engine_options& options)
{
  portfolio out;
  out.source = book.source;
  out.trades.reserve(book.trades.size() * static_cast<std::size_t>(options.rqmc_replicates));
  for (const trade& t : book.trades) {
    std::int64_t const paths =
        replicate_paths(t.paths.value_or(options.paths), options.rqmc_replicates, options.antithetic);
    for (int r = 0; r < options.rqmc_replicates; ++r) {
      out.trades.push_back(t);
      out.trades.back().replicate = r;
      out.trades.back().paths = paths;
    }
  }
  return out;
}

pricing_run fold_replicates(pricing_run&& replicated, const portfolio& book, int replicates)
{
  pricing_run run;
  run.summary = std::move(replicated.summary);
  run.results.reserve(book.trades.size());
  run.summary.failed = 0;
  run.summary.cancelled = 0;
  for (std::size_t i = 0; i < book.trades.size(); ++i) {
    run.results.push_back(fold_trade(replicated.results, i * static_cast<std::size_t>(replicates), replicates));
    if (run.results.back().status == trade_status::error) ++run.summary.failed;
    if (run.results.back().status == trade_status::cancelled) ++run.summary.cancelled;
  }
  run.summary.trades = book.trades.size();
  if (run.summary.without_greeks > 0) {
    // Counted per replicate by the chunks; the book's trades are what a reader counts.
    run.summary.without_greeks = 0;
    for (auto const& r : run.results) {
      if (r.status == trade_status::ok && !r.greeks) ++run.summary.without_greeks;
    }
  }
  return run;
}

double student_t_975(int dof)
{
  // Exact to the digits shown for small dof; beyond, the Cornish-Fisher expansion about the
  // normal quantile (error under 1e-5 from 11 on).
  static constexpr double small[] = {12.706204736, 4.302652730, 3.182446305, 2.776445105, 2.570581836,
                                     2.446911851,  2.364624252, 2.306004135, 2.262157163, 2.228138852};
  if (dof < 1) return std::nan("");
  if (dof <= 10) return small[dof - 1];
  double const z = 1.959963984540054;
  double const v = dof;
  double const z2 = z * z;
  return z + z * (z2 + 1) / (4 * v) + z * ((5 * z2 + 16) * z2 + 3) / (96 * v * v) +
         z * (((3 * z2 + 19) * z2 + 17) * z2 - 15) / (384 * v * v * v) +
         z * ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) / (92160 * v * v * v * v);
}

}  // namespace mcprice::detail
