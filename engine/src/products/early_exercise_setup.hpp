#pragma once
// From a validated American or Bermudan trade (vanilla; basket, best_of, worst_of or spread), or
// a European multi-asset trade with Heston or local-vol assets, to its early-exercise record and
// tables: the exercise dates, each date's exact GBM steps or its substeps (Heston QE, log-normal
// for GBM assets beside them, local vol by grid), the discount to each date, the assets and the
// correlation factor.
#include "families/exercise_family.hpp"
#include "mcprice/kernels/exercise/early_exercise.hpp"
#include "mcprice/market.hpp"
#include "mcprice/portfolio.hpp"
#include "mcprice/settings.hpp"

#include <vector>

namespace mcprice::detail {

// Calibration paths when engine_options::calibration_paths is 0: the pricing paths, up to this
// many (the policy's regression error is then far below a price's std error).
inline constexpr std::int64_t default_max_calibration_paths = std::int64_t{1} << 17;

// Real: the path precision (float, or double for --precision double).
template <typename Real>
struct basic_exercise_job {
  basic_exercise_trade<Real> kernel;  // first_* are set by the batcher
  std::vector<basic_exercise_asset<Real>> assets;
  std::vector<Real> factor;
  std::vector<basic_exercise_gbm_step<Real>> gbm_steps;
  std::vector<basic_heston_step<Real>> heston_steps;
  std::vector<Real> discounts;
  double scale;  // notional (cash flows are discounted to today in the kernel)
  std::int64_t paths;
  double exercise_today{-1.0};  // American: what exercising today pays (< 0: not an exercise time)
  // A Greek scenario that differs from its trade in today's spots only: it carries no tables and
  // walks its trade's (x = ln(S/S0), the variances and the discounts do not depend on S0).
  bool trade_tables{false};
  std::vector<const local_vol_grid*> grids;  // per asset: a local-vol asset's grid (the market's), else null
  std::vector<Real> jump_counts;             // jump trades: lambda dt per step and asset (steps' order)
};
using exercise_job = basic_exercise_job<float>;

template <typename Real = float>
basic_exercise_job<Real> make_exercise_job(const trade& t, const market_data& market, const engine_options& opt);

// The job of `base`'s trade `t` with today's spots `spots` (one per underlying, in the trade's
// order) and no tables of its own (trade_tables): what exercising pays, and the basis' scale
// when the trade has no strike, follow the spots.
template <typename Real>
basic_exercise_job<Real> with_spots(const basic_exercise_job<Real>& base, const trade& t,
                                    const std::vector<double>& spots);

// Appends the job's record (its first_* set: running sums) and tables to the family.
template <typename Real>
void add_to_family(basic_exercise_family<Real>& f, const basic_exercise_job<Real>& j);
// Appends a Greek scenario of family trade `of` (a job of the trade with bumped inputs) to the
// scenario table; returns its index there.
template <typename Real>
std::int32_t add_scenario(basic_exercise_family<Real>& f, const basic_exercise_job<Real>& j, std::size_t of);

// The exercise dates after today: American, `exercise_dates` (default: steps) equal steps;
// Bermudan, `exercise_dates` equally spaced dates ending at maturity.
std::vector<double> exercise_times(const trade& t, const engine_options& opt);

}  // namespace mcprice::detail
