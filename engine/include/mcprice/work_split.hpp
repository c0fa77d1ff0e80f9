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

// Trade indices of each of `parts` parts, each list in input order. Longest-processing-time
// first: trades by falling cost (ties by input position) each go to the part with the least
// cost so far (ties to the lowest part). Within 4/3 of the best possible balance; parts may be
// empty when there are fewer trades than parts.
std::vector<std::vector<std::size_t>> split_by_cost(const portfolio& book, const market_data& market,
                                                    const engine_options& options, std::size_t parts);

// The trades at `indices`, in that order, with the book's source (for messages).
portfolio select_trades(const portfolio& book, const std::vector<std::size_t>& indices);

// The parts' runs as one, results back in input order: parts[k].results[j] is trade
// indices[k][j] of a book of `trades` trades. Counts and time figures are summed over the parts
// (the parts run side by side, so the times may exceed wall_seconds); wall_seconds is the
// longest part's unless the caller sets it. Timeline spans keep their part in `part`.
pricing_run merge_parts(std::vector<pricing_run> parts, const std::vector<std::vector<std::size_t>>& indices,
                        std::size_t trades);

}  // namespace mcprice
