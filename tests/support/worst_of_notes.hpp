#pragma once
// What the worst-of tests share: their step-down note, CPU options, and checks.
#include "catch.hpp"
#include "mcprice/engine.hpp"
#include "trade_on.hpp"

#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace mcprice::testing {

// A two-year step-down note on `underlyings`: quarterly calls stepping down from 105% to 80%,
// 2% memory coupons above 80%, a knock-in at `ki` watched as `monitoring` (discretely: at the
// observations), the put struck at 100%.
inline trade note_on(std::vector<std::string> underlyings, const std::string& id,
                     knock_in_monitoring monitoring = knock_in_monitoring::continuous, double ki = 0.65)
{
  trade t = trade_on(underlyings.front(), id, product_kind::autocallable, option_type::call, 1.0, 2.0);
  t.underlyings = std::move(underlyings);
  t.observation_times = {0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0};
  t.autocall_barrier = {1.05, 1.0, 0.95, 0.9, 0.9, 0.85, 0.85, 0.8};
  t.coupon = 0.02;
  t.coupon_barrier = {0.8};
  t.memory = true;
  t.ki_barrier = ki;
  t.ki_monitoring = monitoring;
  if (monitoring == knock_in_monitoring::discrete) t.fixing_times = t.observation_times;
  return t;
}

// The CPU backend with 24 steps a year (Heston and local-vol grids).
inline engine_options cpu_options(std::int64_t paths, bool greeks = false)
{
  engine_options o;
  o.backend = backend_choice::cpu;
  o.paths = paths;
  o.steps = 24;
  o.greeks = greeks;
  return o;
}

inline void require_ok(const trade_result& r)
{
  INFO(r.id << ": " << r.message);
  REQUIRE(r.status == trade_status::ok);
}

// Two independent estimates of one value: within 4 combined standard errors plus `allowance`.
inline void check_same_value(const trade_result& a, const trade_result& b, double allowance)
{
  INFO(a.id << ": " << a.price << " +- " << a.std_error << " vs " << b.id << ": " << b.price << " +- " << b.std_error);
  CHECK(std::abs(a.price - b.price) <= 4.0 * std::hypot(a.std_error, b.std_error) + allowance);
}

}  // namespace mcprice::testing
