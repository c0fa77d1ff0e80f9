#pragma once
// The least-squares solve of one backward step's normal equations (regression_sums): the CPU
// backend's, and the definition of the GPU's, which runs it in the step's own kernels with a
// warp a trade (regression_solve.cuh: the same operations in the same order, a row a lane), so
// the host is out of the backward loop (a step of a small family was mostly the round trip to a
// host solve).
//
// Gaussian elimination of the scaled normal matrix (for a symmetric positive semi-definite
// matrix, Cholesky) in the basis' order, lowest degree first: a basis function explained by
// those kept before it to within regression_threshold of its own square (its Schur-complement
// diagonal, 1 - R^2 on the scaled matrix) is dropped with coefficient 0 rather than given a
// large coefficient opposite another's, whose float sum in the kernels would lose the
// continuation value. No pivot search: on the device the order is then known at compile time
// and the rows stay in registers, with no selects by a run-time column. Every product
// is a rounded_product and the order of every sum is fixed, so host and device give the same
// bits. The back substitution goes by columns (each solved unknown leaves the earlier pivots'
// right-hand sides at once), the order the warp's lanes can follow.
#include "mcprice/kernels/exercise/early_exercise.hpp"
#include "mcprice/kernels/detail/real_math.hpp"
#include "mcprice/kernels/detail/rounded_product.hpp"

#include <cfloat>
#include <type_traits>

namespace mcprice {

// The entry of basis functions (i, j), i <= j, in regression_sums::xx (upper triangle, row by row).
MCPRICE_HD MCPRICE_INLINE int normal_entry(int i, int j, int basis) { return i * basis - i * (i - 1) / 2 + (j - i); }

// Today's continuation value of trade t from its calibration paths' cash flows' total.
template <typename Real>
MCPRICE_HD MCPRICE_INLINE double continuation_today_of(const basic_exercise_trade<Real>& t, double total)
{
  return total / static_cast<double>(t.calibration_samples);
}

// Below this many paths in the money per basis function, a date fits a constant.
inline constexpr double min_paths_per_basis = 2.0;
// A basis function whose squared residual on those chosen before it is at most this share of
// its own square is dropped (the scaled matrix has a unit diagonal).
inline constexpr double regression_threshold = 1e-9;

// beta[0, max_exercise_basis): the continuation value's coefficients on the unscaled basis, in
// the path precision Real. No path in the money: beta[0] = Real's largest (never exercise at
// that date).
template <typename Real>
void solve_regression(const regression_sums& s, int basis, Real* beta)
{
  constexpr int n = max_exercise_basis;
  for (int i = 0; i < n; ++i) beta[i] = Real(0);
  if (!(s.in_the_money > 0.0)) {
    beta[0] = std::is_same_v<Real, float> ? Real(FLT_MAX) : Real(DBL_MAX);
    return;
  }
  int const m = s.in_the_money < min_paths_per_basis * basis ? 1 : basis;
  double a[n][n];
  double rhs[n];
  double d[n];
  for (int i = 0; i < m; ++i) {
    for (int j = i; j < m; ++j) {
      a[i][j] = s.xx[normal_entry(i, j, basis)];
      a[j][i] = a[i][j];
    }
  }
  // Unit diagonal first (y, y^2, y^3 differ in scale by orders of magnitude).
  for (int i = 0; i < m; ++i) d[i] = a[i][i] > 0.0 ? 1.0 / math::sqrt(a[i][i]) : 0.0;
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < m; ++j) a[i][j] = rounded_product(rounded_product(d[i], a[i][j]), d[j]);
    rhs[i] = rounded_product(d[i], s.xy[i]);
  }
  bool kept[n] = {};
  for (int k = 0; k < m; ++k) {
    if (!(a[k][k] > regression_threshold)) continue;  // explained by the functions kept before it
    kept[k] = true;
    // Row k stays as it is now: the back substitution's row of this pivot.
    for (int i = k + 1; i < m; ++i) {
      double const l = a[i][k] / a[k][k];
      for (int j = k + 1; j < m; ++j) a[i][j] = a[i][j] - rounded_product(l, a[k][j]);
      rhs[i] = rhs[i] - rounded_product(l, rhs[k]);
    }
  }
  double x[n];
  for (int i = 0; i < n; ++i) x[i] = 0.0;
  for (int k = m - 1; k >= 0; --k) {
    if (!kept[k]) continue;
    x[k] = rhs[k] / a[k][k];
    for (int i = 0; i < k; ++i) {
      if (kept[i]) rhs[i] = rhs[i] - rounded_product(a[i][k], x[k]);
    }
  }
  for (int i = 0; i < m; ++i) beta[i] = static_cast<Real>(rounded_product(d[i], x[i]));
}

// What backward step `step` leaves of trade t: its regression date's coefficient row in
// `coefficients` (the family's table), or, on the step past its last regression, today's
// continuation value (the mean cash flow) in *continuation_today.
template <typename Real>
void store_regression(const basic_exercise_trade<Real>& t, int step, const regression_sums& s, Real* coefficients,
                      double* continuation_today)
{
  if (step < regressions(t)) {
    solve_regression(s, t.basis, coefficients + coefficient_offset(t, regression_date(t, step)));
  } else if (step == regressions(t)) {
    *continuation_today = continuation_today_of(t, s.total);
  }
}

}  // namespace mcprice
