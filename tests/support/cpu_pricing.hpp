#pragma once
// Prices a few trades on the CPU backend with the given paths and steps: the host suites'
// common call.
#include "mcprice/engine.hpp"

#include <vector>

namespace mcprice::testing {

inline pricing_run price_on_cpu(const market_data& m, std::vector<trade> trades, std::int64_t paths, std::int64_t steps)
{
  engine_options o;
  o.backend = backend_choice::cpu;
  o.paths = paths;
  o.steps = steps;
  portfolio book;
  book.trades = std::move(trades);
  return engine(m, o).price(book);
}

}  // namespace mcprice::testing
