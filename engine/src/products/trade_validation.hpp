#pragma once
// Checks a trade against the contract and the market before any pricing. Messages name the
// trade, the field and the value ("trade T7: maturity -1 must be > 0").
#include "mcprice/market.hpp"
#include "mcprice/portfolio.hpp"

#include <cstddef>
#include <string>

namespace mcprice::detail {

// Products on several assets (basket, best_of, worst_of, spread); the others take one.
bool multi_asset(product_kind p);

// Empty when the trade is well formed; otherwise why not. When it is, *first_underlying (if
// given) receives the market index of its first underlying, so callers need not look it up.
std::string validate_trade(const trade& t, const market_data& market, std::size_t* first_underlying = nullptr);

// Empty when this release can price the (valid) trade; otherwise what is missing.
std::string unsupported_feature(const trade& t, const market_data& market);

}  // namespace mcprice::detail
