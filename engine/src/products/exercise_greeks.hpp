#pragma once
// Greeks of American and Bermudan trades: central differences of scenario prices (the trade
// with one input bumped) under the trade's calibrated exercise policy, each difference formed
// per path from the same normals (exercise_combination), so its std error is the difference's
// own. Holding the policy is first-order exact: at the optimal policy the value's derivative
// with respect to the policy is zero (the envelope argument), and re-calibrating per scenario
// would add the regressions' noise to every difference.
#include "products/early_exercise_setup.hpp"
#include "mcprice/results.hpp"

#include <vector>

namespace mcprice::detail {

enum class greek_slot { delta, gamma, vega, theta, rho, cross_gamma, correlation_vega };

struct exercise_leg {
  std::size_t scenario;  // into exercise_greek_plan::scenarios
  float weight;
};

struct exercise_greek {
  greek_slot slot;
  std::size_t index;  // the asset (delta, gamma, vega) or the pair (cross gamma, row-major i < j)
  std::vector<exercise_leg> legs;
  double denominator;       // the difference's step: Greek = sum of weighted values / denominator
  bool shared_path{false};  // the legs differ in spots only (delta, gamma, cross gamma)
};

// Real: the scenarios' path precision (float, or double under --precision double).
template <typename Real>
struct basic_exercise_greek_plan {
  std::vector<basic_exercise_job<Real>> scenarios;  // scenario 0 is the trade itself
  std::vector<exercise_greek> greeks;
  std::size_t assets{0};
};
using exercise_greek_plan = basic_exercise_greek_plan<float>;

// Bumps: spot x (1 +- 1%), vol +- 0.01 (Heston: sqrt(v0) and sqrt(theta) together), every
// pairwise correlation +- 0.01, the discount curve +- 1e-3, maturity -+ one day.
template <typename Real = float>
basic_exercise_greek_plan<Real> make_exercise_greeks(const trade& t, const market_data& market,
                                                     const engine_options& opt);

// The Greeks from each combination's estimate (scale: the trade's, before the denominator);
// exercised today, from what exercising today pays in each scenario instead (no MC error).
template <typename Real>
trade_greeks assemble_exercise_greeks(const basic_exercise_greek_plan<Real>& plan,
                                      const std::vector<greek_estimate>& values);
template <typename Real>
trade_greeks exercised_today_greeks(const basic_exercise_greek_plan<Real>& plan, double scale);

}  // namespace mcprice::detail
