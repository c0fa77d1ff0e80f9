#pragma once
// An engine on several GPUs: one engine per device, the book split across them by estimated
// cost (work_split.hpp) and priced side by side, the results merged back into input order.
#include "mcprice/engine.hpp"
#include "thread_cache.hpp"

#include <atomic>
#include <vector>

namespace mcprice::detail {

// The first part is priced on the calling thread, the others on kept threads. Progress is
// summed over the parts and reported from whichever thread moved it, one call at a time. If a
// part fails, the others are still waited for, and the first failure is rethrown.
pricing_run price_split(const std::vector<engine>& devices, const market_data& market, const engine_options& options,
                        thread_cache& threads, const portfolio& book, const progress_callback& progress,
                        const std::atomic<bool>* cancel);

}  // namespace mcprice::detail
