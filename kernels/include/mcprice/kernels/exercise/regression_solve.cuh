#pragma once
// The device's regression solve: solve_regression (regression_solve.hpp) by one warp, lane i
// holding row i of the scaled normal matrix in registers. The same operations in the same order
// as the host's, hence the same bits (GPU test). A thread alone took about 70 us a solve (the
// matrix in local memory, every division and update one after another; docs/benchmarks.md).
#include "mcprice/kernels/exercise/regression_solve.hpp"

#include <cfloat>
#include <cstdint>

namespace mcprice::kernels {

namespace detail {

// r[k] for a run-time k, by selects: the row stays in registers.
__device__ __forceinline__ double pick(const double (&r)[max_exercise_basis], int k)
{
  double v = r[0];
#pragma unroll
  for (int j = 1; j < max_exercise_basis; ++j) v = k == j ? r[j] : v;
  return v;
}

}  // namespace detail

// solve_regression by the calling warp (all 32 lanes, converged); s: in memory every lane reads
// (shared or global); beta: max_exercise_basis floats, a lane each.
__device__ __forceinline__ void warp_solve_regression(const regression_sums& s, int basis, float* beta)
{
  constexpr int n = max_exercise_basis;
  constexpr unsigned all = 0xFFFFFFFFU;
  int const lane = static_cast<int>(threadIdx.x % 32);
  if (!(s.in_the_money > 0.0)) {
    if (lane < n) beta[lane] = lane == 0 ? FLT_MAX : 0.0F;
    return;
  }
  int const m = s.in_the_money < min_paths_per_basis * basis ? 1 : basis;
  bool const mine = lane < m;
  double row[n];
#pragma unroll
  for (int j = 0; j < n; ++j) {
    row[j] = mine && j < m ? s.xx[lane <= j ? normal_entry(lane, j, basis) : normal_entry(j, lane, basis)] : 0.0;
  }
  double const diagonal = detail::pick(row, lane);
  double const d = mine && diagonal > 0.0 ? 1.0 / sqrt(diagonal) : 0.0;
#pragma unroll
  for (int j = 0; j < n; ++j) {
    double const dj = __shfl_sync(all, d, j);
    if (mine && j < m) row[j] = rounded_product(rounded_product(d, row[j]), dj);
  }
  double rhs = mine ? rounded_product(d, s.xy[lane]) : 0.0;

  // Unrolled: every column index is a compile-time constant, so the rows stay in registers.
  unsigned kept = 0U;
#pragma unroll
  for (int k = 0; k < n; ++k) {
    if (k >= m) break;
    double const pivot = __shfl_sync(all, row[k], k);
    if (!(pivot > regression_threshold)) continue;  // explained by the functions kept before it
    kept |= 1U << k;
    double pivot_row[n];
#pragma unroll
    for (int j = k + 1; j < n; ++j) pivot_row[j] = __shfl_sync(all, row[j], k);
    double const pivot_rhs = __shfl_sync(all, rhs, k);
    if (lane > k && mine) {
      double const l = row[k] / pivot;
#pragma unroll
      for (int j = k + 1; j < n; ++j) {
        if (j < m) row[j] = row[j] - rounded_product(l, pivot_row[j]);
      }
      rhs = rhs - rounded_product(l, pivot_rhs);
    }
  }
  double x = 0.0;
#pragma unroll
  for (int k = n - 1; k >= 0; --k) {
    if (k >= m || (kept >> k & 1U) == 0U) continue;
    double solved = 0.0;
    if (lane == k) solved = rhs / row[k];
    double const xk = __shfl_sync(all, solved, k);
    if (lane == k) x = xk;
    if (lane < k && (kept >> lane & 1U) != 0U) rhs = rhs - rounded_product(row[k], xk);
  }
  if (lane < n) beta[lane] = mine ? static_cast<float>(rounded_product(d, x)) : 0.0F;
}

// store_regression by the calling warp: trade t's coefficient row of backward step `step`, or
// its continuation value today into *continuation_today.
__device__ __forceinline__ void warp_store_regression(const exercise_trade& t, int step, const regression_sums& s,
                                                      float* coefficients, double* continuation_today)
{
  if (step < regressions(t)) {
    warp_solve_regression(s, t.basis, coefficients + coefficient_offset(t, regression_date(t, step)));
  } else if (step == regressions(t) && threadIdx.x % 32 == 0) {
    *continuation_today = continuation_today_of(t, s.total);
  }
}

}  // namespace mcprice::kernels
