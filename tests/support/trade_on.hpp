#pragma once
// Single-asset trades for the model tests: product, type, strike and maturity on one asset; an
// autocallable.
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

// A one-year autocallable on one asset: step-down calls, memory coupons, a continuous knock-in.
inline trade autocallable_on(const std::string& asset)
{
  trade t = trade_on(asset, asset + "-autocallable", product_kind::autocallable, option_type::call, 0.9, 1.0);
  t.observation_times = {0.25, 0.5, 0.75, 1.0};
  t.autocall_barrier = {1.05, 1.0, 0.95, 0.9};
  t.coupon = 0.02;
  t.coupon_barrier = {0.8};
  t.memory = true;
  t.ki_barrier = 0.7;
  t.ki_monitoring = knock_in_monitoring::continuous;
  return t;
}

}  // namespace mcprice::testing
