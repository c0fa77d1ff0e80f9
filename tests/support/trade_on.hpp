#pragma once
// A single-asset trade for the model tests: product, type, strike and maturity on one asset.
#include "mcprice/portfolio.hpp"

#include <string>
#include <utility>

namespace mcprice::testing {

inline trade trade_on(const std::string& asset, std::string id, product_kind p, option_type type, double strike,
                      double maturity)
{
  trade x;
  x.id = std::move(id);
  x.product = p;
  x.type = type;
  x.underlyings = {asset};
  x.strike = strike;
  x.maturity = maturity;
  return x;
}

}  // namespace mcprice::testing
