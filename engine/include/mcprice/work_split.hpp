#pragma once
// Splitting a book across GPUs (engine_options::devices) or MPI ranks (price-batch under
// mpirun): a deterministic function of the book, the market and the settings that change the
// numbers, so every rank computes the same split without talking to the others. A trade's
// numbers depend only on the run seed and its id (the architecture's RNG rule), so where it is
// priced never changes them.
#include "mcprice/market.hpp"
#include "mcprice/portfolio.hpp"
#include "mcprice/results.hpp"
#include "mcprice/settings.hpp"

#include <cstddef>
#include <vector>

namespace mcprice {

// Relative cost of pricing a trade: normals drawn, paths x time steps simulated x assets, with
// Heston's variance path and early exercise's calibration counted. Only for balancing: it need
// not be a time, only proportional to one within a book. A row that could not be read costs 1.
double estimated_cost(const trade& t, const market_data& market, const engine_options& options);

// A part of a book: trades [begin, end).
struct trade_range {
  std::size_t begin{0};
  std::size_t end{0};
  [[nodiscard]] std::size_t size() const { return end - begin; }
  bool operator==(const trade_range& o) const { return begin == o.begin && end == o.end; }
};

// `parts` consecutive ranges covering the book, with about equal estimated cost: part k ends
// where the running cost comes nearest to (k + 1) / parts of the total. Consecutive, so a part is
// priced straight from the book and its results land in place (no copies of trades or rows);
// no part exceeds an equal share by more than its costliest trade. Ranges may be empty when
// there are fewer trades than parts.
std::vector<trade_range> split_by_cost(const portfolio& book, const market_data& market, const engine_options& options,
                                       std::size_t parts);

// The trades of `range`, with the book's source (for messages): a rank's own book.
portfolio select_trades(const portfolio& book, trade_range range);

// The parts' runs as one: parts[k] priced ranges[k] of a book of `trades` trades, its results
// in order. Counts and time figures are summed over the parts (the parts run side by side, so
// the times may exceed wall_seconds); wall_seconds is the longest part's unless the caller sets
// it. Timeline spans keep their part in `part`.
pricing_run merge_parts(std::vector<pricing_run> parts, const std::vector<trade_range>& ranges, std::size_t trades);

// The summaries of parts priced in place, as one (the rules of merge_parts).
run_summary merge_summaries(const std::vector<run_summary>& parts);

}  // namespace mcprice
