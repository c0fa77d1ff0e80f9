#pragma once
// A chunk of a request prepared for the backends: its trades checked and turned into kernel
// records, one batch per registered family (family_list.hpp), the early-exercise trades beside
// them, and the rows the checks refused.
#include "families/exercise_rows.hpp"
#include "families/family_list.hpp"
#include "mcprice/market.hpp"
#include "mcprice/portfolio.hpp"
#include "mcprice/settings.hpp"
#include "runtime/thread_cache.hpp"

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace mcprice::detail {

struct request_families {
  family_batches priced;  // one batch a registered family, in list order
  exercise_rows exercises;
  double_exercise_rows double_exercises;  // --precision double
  std::vector<std::pair<std::size_t, std::string>> rejected;  // rows the checks refused, and why
};

// Checks rows [begin, end) and builds their kernel records (independent per trade: several
// threads on large books, trades_per_thread each), then numbers their blocks in input order,
// per family. The results are not touched: a pipeline's first chunk is prepared while they are
// still being allocated.
request_families prepare_rows(const portfolio& trades, std::size_t begin, std::size_t end, const market_data& market,
                              const engine_options& options, thread_cache& threads, std::size_t trades_per_thread);

}  // namespace mcprice::detail
