#pragma once
// Stulz (1982) calls on the maximum and the minimum of two log-normal assets (Haug, "The
// Complete Guide to Option Pricing Formulas", 2nd ed., 5.2.1), with the bivariate normal
// distribution integrated numerically: M(a, b; rho) = int_{-inf}^{a} phi(x) N((b - rho x) /
// sqrt(1 - rho^2)) dx, by composite Simpson on [-12, a], exact to about 1e-12 here.
#include "mcprice/black_scholes.hpp"

#include <cmath>

namespace mcprice::testing {

inline double bivariate_normal_cdf(double a, double b, double rho)
{
  auto const N = [](double x) { return black_scholes::normal_cdf(x); };
  if (a <= -12.0 || b <= -12.0) return 0.0;
  double const s = std::sqrt(1.0 - rho * rho);
  auto const f = [&](double x) { return std::exp(-0.5 * x * x) * N((b - rho * x) / s); };
  constexpr int n = 20000;  // even
  double const lo = -12.0;
  double const h = (a - lo) / n;
  double sum = f(lo) + f(a);
  for (int i = 1; i < n; ++i) sum += (i % 2 == 1 ? 4.0 : 2.0) * f(lo + i * h);
  return sum * h / 3.0 / std::sqrt(2.0 * M_PI);
}

struct two_assets {
  double s1, s2, q1, q2, vol1, vol2, rho, r, T;
};

// Call on max(S1, S2) (max = true) or on min(S1, S2), struck at K.
inline double stulz_call(const two_assets& p, double K, bool max)
{
  double const sq = std::sqrt(p.T);
  double const vol = std::sqrt(p.vol1 * p.vol1 + p.vol2 * p.vol2 - 2.0 * p.rho * p.vol1 * p.vol2);
  double const d = (std::log(p.s1 / p.s2) + (p.q2 - p.q1 + 0.5 * vol * vol) * p.T) / (vol * sq);
  double const y1 = (std::log(p.s1 / K) + (p.r - p.q1 + 0.5 * p.vol1 * p.vol1) * p.T) / (p.vol1 * sq);
  double const y2 = (std::log(p.s2 / K) + (p.r - p.q2 + 0.5 * p.vol2 * p.vol2) * p.T) / (p.vol2 * sq);
  double const rho1 = (p.vol1 - p.rho * p.vol2) / vol;
  double const rho2 = (p.vol2 - p.rho * p.vol1) / vol;
  double const f1 = p.s1 * std::exp(-p.q1 * p.T);
  double const f2 = p.s2 * std::exp(-p.q2 * p.T);
  double const k = K * std::exp(-p.r * p.T);
  auto const M = bivariate_normal_cdf;
  if (max) {
    return f1 * M(y1, d, rho1) + f2 * M(y2, -d + vol * sq, rho2) -
           k * (1.0 - M(-y1 + p.vol1 * sq, -y2 + p.vol2 * sq, p.rho));
  }
  return f1 * M(y1, -d, -rho1) + f2 * M(y2, d - vol * sq, -rho2) - k * M(y1 - p.vol1 * sq, y2 - p.vol2 * sq, p.rho);
}

// Puts by parity with a zero-strike call: put(K) = K e^{-rT} - C(0) + C(K), where C(0) is the
// discounted forward of the max or min (a call struck at a tiny K).
inline double stulz_put(const two_assets& p, double K, bool max)
{
  return K * std::exp(-p.r * p.T) - stulz_call(p, 1e-9, max) + stulz_call(p, K, max);
}

}  // namespace mcprice::testing
