#pragma once
// Determinism checks compare bits, not values.
#include "mcprice/engine.hpp"

#include <cstring>

namespace mcprice::testing {

// Every trade's price and std error, bit for bit.
inline bool same_result_bits(const pricing_run& a, const pricing_run& b)
{
  if (a.results.size() != b.results.size()) return false;
  for (std::size_t i = 0; i < a.results.size(); ++i) {
    if (std::memcmp(&a.results[i].price, &b.results[i].price, sizeof(double)) != 0) return false;
    if (std::memcmp(&a.results[i].std_error, &b.results[i].std_error, sizeof(double)) != 0) return false;
  }
  return true;
}

}  // namespace mcprice::testing
