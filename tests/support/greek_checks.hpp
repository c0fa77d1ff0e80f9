#pragma once
// Checks a run's Greeks against Black-Scholes' (reference_greeks), shared by the CPU and GPU
// suites: |mc - ref| <= 4 std errors + the float allowance of price_tolerance. The estimators
// are unbiased (pathwise or likelihood ratio, no bump), so there is no discretisation term.
#include "catch.hpp"
#include "mcprice/results.hpp"
#include "pricing_cases.hpp"

namespace mcprice::testing {

inline void check_greeks_against_black_scholes(const portfolio& book, const market_data& market, const pricing_run& run)
{
  REQUIRE(run.results.size() == book.trades.size());
  for (std::size_t i = 0; i < book.trades.size(); ++i) {
    auto const& r = run.results[i];
    REQUIRE(r.status == trade_status::ok);
    REQUIRE(r.greeks.has_value());
    auto const ref = reference_greeks(book.trades[i], market);
    std::pair<const char*, std::pair<greek_estimate, double>> const rows[] = {{"delta", {r.greeks->delta, ref.delta}},
                                                                              {"gamma", {r.greeks->gamma, ref.gamma}},
                                                                              {"vega", {r.greeks->vega, ref.vega}},
                                                                              {"theta", {r.greeks->theta, ref.theta}},
                                                                              {"rho", {r.greeks->rho, ref.rho}}};
    for (auto const& [name, pair] : rows) {
      auto const& [mc, expected] = pair;
      INFO(r.id << " " << name << ": mc " << mc.value << " +- " << mc.std_error << ", Black-Scholes " << expected);
      CHECK(std::abs(mc.value - expected) <= price_tolerance(mc.std_error, expected));
    }
  }
}

}  // namespace mcprice::testing
