#pragma once
// An engine on several GPUs: one engine per device, the book cut into consecutive ranges of
// about equal estimated cost (work_split.hpp), priced side by side straight into one results
// vector.
#include "mcprice/engine.hpp"
#include "runtime/thread_cache.hpp"

#include <atomic>
#include <vector>

namespace mcprice::detail {

// Ranges are split with the engines' common market and settings. The first range is priced on
// the calling thread, the others on kept threads; the results vector is sized on another kept
// thread meanwhile. Progress is summed over the ranges and reported from whichever thread
// moved it, one call at a time. If a range fails, the others are still waited for, and the first
// failure is rethrown.
pricing_run price_split(const std::vector<engine>& devices, const market_data& market, thread_cache& threads,
                        const portfolio& book, const progress_callback& progress, const std::atomic<bool>* cancel);

}  // namespace mcprice::detail
