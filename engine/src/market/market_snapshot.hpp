#pragma once
// The market as one flat array of doubles, the form in which it enters the device through the
// GPUDirect-safe market buffers. Layout (all doubles; counts stored as doubles):
//   [asset count n] [discount: k, k times, max(k,1) rates]
//   per asset: [spot] [dividend: k, times, rates] [vol: k, times, vols] [model 0=gbm 1=heston]
//              [v0 kappa theta xi rho]
//   [m] then m triples (i, j, rho) for i < j and rho != 0 (a book of thousands of independent
//   assets stays small)
#include "mcprice/market.hpp"

#include <vector>

namespace mcprice::detail {

std::vector<double> flatten_market(const market_data& market);

}  // namespace mcprice::detail
