#pragma once
// From the moments of the payoffs to a price, its standard error and a 95% interval.
#include "mcprice/kernels/moments.hpp"
#include "mcprice/results.hpp"

#include <string>
#include <vector>

namespace mcprice::detail {

// m holds the moments of `samples` independent samples (paths or antithetic pairs); scale
// converts their mean into a price (discount x notional x payout).
trade_result make_result(const std::string& id, const moments& m, std::int64_t samples, std::int64_t paths,
                         double scale);

// An autocallable's redemption statistics from its outcome counters (kernels/products/
// outcome_tally.hpp) and its observation times; the counters must be tally_slots_of(times).
redemption_statistics redemption_of(const std::vector<unsigned long long>& tally, const std::vector<double>& times);

}  // namespace mcprice::detail
