#pragma once
// The least-squares solve of one backward step's normal equations (regression_sums), shared by
// the CPU backend and the GPU, where it runs in the step's own kernels: the host is then out of
// the backward loop (a step of a small family was mostly the round trip to a host solve).
//
// Gaussian elimination of the scaled normal matrix with diagonal pivoting (for a symmetric
// positive semi-definite matrix, pivoted Cholesky): each step eliminates the remaining basis
// function least explained by those already chosen (largest Schur-complement diagonal, the
// lowest index on a tie) and stops when none is explained to less than 1 - regression_threshold:
// nearly collinear functions are dropped (coefficient 0) rather than given large opposite
// coefficients, whose float sum in the kernels would lose the continuation value. Every product
// is a rounded_product and the order of every sum is fixed, so host and device give the same
// bits.
#include "mcprice/kernels/early_exercise.hpp"
#include "mcprice/kernels/real_math.hpp"
#include "mcprice/kernels/rounded_product.hpp"

#include <cfloat>

namespace mcprice {

// Below this many paths in the money per basis function, a date fits a constant.
inline constexpr double min_paths_per_basis = 2.0;
// A basis function whose squared residual on those chosen before it is at most this share of
// its own square is dropped (the scaled matrix has a unit diagonal).
inline constexpr double regression_threshold = 1e-9;

// beta[0, max_exercise_basis): the continuation value's coefficients on the unscaled basis.
// No path in the money: beta[0] = FLT_MAX (never exercise at that date). Not forced inline:
// the kernels that call it once a step need not carry it in their hot code.
MCPRICE_HD inline void solve_regression(const regression_sums& s, int basis, float* beta)
{
  constexpr int n = max_exercise_basis;
  for (int i = 0; i < n; ++i) beta[i] = 0.0F;
  if (!(s.in_the_money > 0.0)) {
    beta[0] = FLT_MAX;
    return;
  }
  int const m = s.in_the_money < min_paths_per_basis * basis ? 1 : basis;
  double a[n][n];
  double rhs[n];
  double d[n];
  int e = 0;
  for (int i = 0; i < basis; ++i) {
    for (int j = i; j < basis; ++j, ++e) {
      if (j < m) {
        a[i][j] = s.xx[e];
        a[j][i] = s.xx[e];
      }
    }
  }
  // Unit diagonal first (y, y^2, y^3 differ in scale by orders of magnitude).
  for (int i = 0; i < m; ++i) d[i] = a[i][i] > 0.0 ? 1.0 / math::sqrt(a[i][i]) : 0.0;
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < m; ++j) a[i][j] = rounded_product(rounded_product(d[i], a[i][j]), d[j]);
    rhs[i] = rounded_product(d[i], s.xy[i]);
  }
  bool done[n] = {};
  int order[n];
  int rank = 0;
  for (; rank < m; ++rank) {
    int p = -1;
    double best = regression_threshold;
    for (int i = 0; i < m; ++i) {
      if (!done[i] && a[i][i] > best) {
        best = a[i][i];
        p = i;
      }
    }
    if (p < 0) break;
    done[p] = true;
    order[rank] = p;
    // Row p stays as it is now: the back substitution's row of the pivot.
    for (int i = 0; i < m; ++i) {
      if (done[i]) continue;
      double const l = a[i][p] / a[p][p];
      for (int j = 0; j < m; ++j) {
        if (!done[j]) a[i][j] = a[i][j] - rounded_product(l, a[p][j]);
      }
      rhs[i] = rhs[i] - rounded_product(l, rhs[p]);
    }
  }
  double x[n];
  for (int i = 0; i < n; ++i) x[i] = 0.0;
  for (int k = rank - 1; k >= 0; --k) {
    int const p = order[k];
    double v = rhs[p];
    for (int q = k + 1; q < rank; ++q) v = v - rounded_product(a[p][order[q]], x[order[q]]);
    x[p] = v / a[p][p];
  }
  for (int i = 0; i < m; ++i) beta[i] = static_cast<float>(rounded_product(d[i], x[i]));
}

// What backward step `step` leaves of trade t: its regression date's coefficient row in
// `coefficients` (the family's table), or, on the step past its last regression, today's
// continuation value (the mean cash flow) in *continuation_today.
MCPRICE_HD inline void store_regression(const exercise_trade& t, int step, const regression_sums& s,
                                                float* coefficients, double* continuation_today)
{
  if (step < regressions(t)) {
    float* const row = coefficients + static_cast<std::int64_t>(t.first_coefficient + regression_date(t, step)) * max_exercise_basis;
    solve_regression(s, t.basis, row);
  } else if (step == regressions(t)) {
    *continuation_today = s.total / static_cast<double>(t.calibration_samples);
  }
}

}  // namespace mcprice
