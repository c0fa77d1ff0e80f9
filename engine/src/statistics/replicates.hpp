#pragma once
// Randomised quasi-Monte Carlo's error bars (docs/quasi-monte-carlo.md): a book is priced as R
// independent scramblings of each trade (copies that differ only in their replicate), and each
// trade's R estimates become its row: their mean, their standard deviation / sqrt(R), a 95%
// interval from Student's t with R - 1 degrees of freedom, and their total paths.
#include "mcprice/portfolio.hpp"
#include "mcprice/results.hpp"
#include "mcprice/settings.hpp"

#include <cstdint>

namespace mcprice::detail {

// Paths of one replicate: the requested paths / R, rounded up to a power of two of samples (a
// sample being an antithetic pair where antithetic sampling is on).
std::int64_t replicate_paths(std::int64_t requested, int replicates, bool antithetic);

// R copies of each trade, trade-major, each with its replicate and its paths.
portfolio replicate_book(const portfolio& book, const engine_options& options);

// The rows of `book` from the run over replicate_book(book): R rows a trade.
pricing_run fold_replicates(pricing_run&& replicated, const portfolio& book, int replicates);

// The 0.975 quantile of Student's t with `dof` degrees of freedom.
double student_t_975(int dof);

}  // namespace mcprice::detail
