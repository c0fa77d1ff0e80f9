#pragma once
// Determinism checks compare bits, not values.
#include "mcprice/engine.hpp"

#include <cstring>
#include <vector>

namespace mcprice::testing {

inline bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof(double)) == 0; }

inline bool same_bits(const std::vector<double>& a, const std::vector<double>& b)
{
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), sizeof(double) * a.size()) == 0);
}

// An autocallable's redemption statistics, bit for bit (both absent is the same).
inline bool same_redemption_bits(const trade_result& a, const trade_result& b)
{
  if (a.redemption.has_value() != b.redemption.has_value()) return false;
  if (!a.redemption) return true;
  return same_bits(a.redemption->probabilities, b.redemption->probabilities) &&
         same_bits(a.redemption->expected_life, b.redemption->expected_life) &&
         same_bits(a.redemption->knock_in_probability, b.redemption->knock_in_probability);
}

// A row's Greeks, every estimate's value, bit for bit (both absent is the same).
inline bool same_greek_bits(const trade_result& a, const trade_result& b)
{
  if (a.greeks.has_value() != b.greeks.has_value()) return false;
  if (!a.greeks) return true;
  auto const x = a.greeks->all();
  auto const y = b.greeks->all();
  if (x.size() != y.size()) return false;
  for (std::size_t g = 0; g < x.size(); ++g) {
    if (!same_bits(x[g].value, y[g].value)) return false;
  }
  return true;
}

// Every trade's price and std error, and an autocallable's redemption statistics, bit for bit.
inline bool same_result_bits(const pricing_run& a, const pricing_run& b)
{
  if (a.results.size() != b.results.size()) return false;
  for (std::size_t i = 0; i < a.results.size(); ++i) {
    if (!same_bits(a.results[i].price, b.results[i].price)) return false;
    if (!same_bits(a.results[i].std_error, b.results[i].std_error)) return false;
    if (!same_redemption_bits(a.results[i], b.results[i])) return false;
  }
  return true;
}

}  // namespace mcprice::testing
