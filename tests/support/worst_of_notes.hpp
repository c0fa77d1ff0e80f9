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

// Two independent estimates of one Greek: within 4 combined standard errors plus `relative` of b.
inline void check_same_greek(const char* what, const greek_estimate& a, const greek_estimate& b, double relative)
{
  INFO(what << ": " << a.value << " +- " << a.std_error << " vs " << b.value << " +- " << b.std_error);
  CHECK(std::abs(a.value - b.value) <= 4.0 * std::hypot(a.std_error, b.std_error) + relative * std::abs(b.value));
}

// Two estimates of one Greek on the same draws whose arithmetic differs: within `relative` of b
// (and a twentieth of its standard error: a path within rounding of a barrier may cross).
inline void check_near(const char* what, const greek_estimate& a, const greek_estimate& b, double relative)
{
  INFO(what << ": " << a.value << " +- " << a.std_error << " vs " << b.value << " +- " << b.std_error);
  CHECK(std::abs(a.value - b.value) <= relative * std::abs(b.value) + 0.05 * b.std_error + 1e-7);
}

// Every Greek of a two-asset worst-of against another model's on the same draws (a local-vol
// asset on a flat surface against the GBM asset at its vol).
inline void check_same_draw_greeks(const trade_greeks& a, const trade_greeks& b)
{
  REQUIRE(a.deltas.size() == 2);
  REQUIRE(a.cross_gammas.size() == 1);
  for (std::size_t i = 0; i < 2; ++i) {
    INFO("asset " << i);
    check_near("delta", a.deltas[i], b.deltas[i], 0.005);
    check_near("gamma", a.gammas[i], b.gammas[i], 0.01);
    check_near("vega", a.vegas[i], b.vegas[i], 0.005);
  }
  check_near("cross gamma", a.cross_gammas[0], b.cross_gammas[0], 0.01);
  check_near("correlation vega", a.correlation_vega, b.correlation_vega, 0.005);
  check_near("rho", a.rho, b.rho, 0.005);
  check_near("theta", a.theta, b.theta, 0.005);
}

// A worst-of whose second asset is never the worst against the single-asset note on its first:
// the price and delta, vega, rho and theta within 4 standard errors (plus 1-5%), and nothing
// from the second asset.
inline void check_single_note_greeks(const trade_result& w, const trade_result& single)
{
  check_same_value(w, single, 1e-4);
  REQUIRE(w.greeks);
  REQUIRE(single.greeks);
  auto const& g = *w.greeks;
  auto const& s = *single.greeks;
  check_same_greek("delta", g.deltas[0], s.delta, 0.02);
  check_same_greek("vega", g.vegas[0], s.vega, 0.03);
  check_same_greek("rho", g.rho, s.rho, 0.03);
  check_same_greek("theta", g.theta, s.theta, 0.05);
  CHECK(g.deltas[1].value == 0.0);
  CHECK(g.vegas[1].value == 0.0);
  CHECK(g.cross_gammas[0].value == 0.0);
}

}  // namespace mcprice::testing
