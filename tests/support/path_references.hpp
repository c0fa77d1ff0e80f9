#pragma once
// Closed forms for the path-dependent products, as references for the Monte Carlo tests:
// discrete geometric Asians under term structures (log S at the fixings is jointly normal),
// Reiner-Rubinstein barriers by reflection, and touch options (Haug, "The Complete Guide to
// Option Pricing Formulas", 2nd ed., 4.17-4.19).
#include "mcprice/black_scholes.hpp"
#include "mcprice/geometric_asian.hpp"
#include "mcprice/market.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace mcprice::testing {

inline double ncdf(double x) { return black_scholes::normal_cdf(x); }

// Geometric Asians: the engine's own closed form (mcprice/geometric_asian.hpp), checked in
// path_pricing_test against Monte Carlo.
inline double geometric_asian(const market_data& m, const asset& a, std::vector<double> fix, double T, double K,
                              bool call, bool floating)
{
  return geometric_asian_price(m, a, fix, T, K, call, floating);
}

struct flat_bs {
  double s, r, q, vol, T;
  [[nodiscard]] black_scholes::inputs at(double spot, double K) const
  {
    double const df = std::exp(-r * T);
    return {spot * std::exp(-q * T) / df, K, vol * vol * T, df};
  }
};

// Down-and-out call with K >= B, or up-and-out put with K <= B, no rebate: the vanilla less
// its reflection (B/S)^(2(r-q)/vol^2 - 1) V(B^2/S, K).
inline double knock_out_by_reflection(const flat_bs& p, double K, double B, bool call)
{
  double const power = std::pow(B / p.s, 2.0 * (p.r - p.q) / (p.vol * p.vol) - 1.0);
  double const reflected = B * B / p.s;
  if (call) return black_scholes::call(p.at(p.s, K)) - power * black_scholes::call(p.at(reflected, K));
  return black_scholes::put(p.at(p.s, K)) - power * black_scholes::put(p.at(reflected, K));
}

// Cash 1 paid at the first touch of B (Haug's F term; down: eta = 1, up: eta = -1).
inline double one_touch_at_hit(const flat_bs& p, double B, bool down)
{
  double const eta = down ? 1.0 : -1.0;
  double const sd = p.vol * std::sqrt(p.T);
  double const mu = (p.r - p.q - 0.5 * p.vol * p.vol) / (p.vol * p.vol);
  double const lambda = std::sqrt(mu * mu + 2.0 * p.r / (p.vol * p.vol));
  double const z = std::log(B / p.s) / sd + lambda * sd;
  return std::pow(B / p.s, mu + lambda) * ncdf(eta * z) +
         std::pow(B / p.s, mu - lambda) * ncdf(eta * z - 2.0 * eta * lambda * sd);
}

// Cash 1 paid at T if B was touched: the discounted probability of touching.
inline double one_touch_at_expiry(const flat_bs& p, double B, bool down)
{
  double const sd = p.vol * std::sqrt(p.T);
  double const m = (p.r - p.q - 0.5 * p.vol * p.vol) * p.T;
  double const h = std::log(B / p.s);
  double const power = std::pow(B / p.s, 2.0 * (p.r - p.q - 0.5 * p.vol * p.vol) / (p.vol * p.vol));
  double const prob =
      down ? ncdf((h - m) / sd) + power * ncdf((h + m) / sd) : ncdf((m - h) / sd) + power * ncdf((-h - m) / sd);
  return std::exp(-p.r * p.T) * prob;
}

}  // namespace mcprice::testing

namespace mcprice::testing {

// Continuously monitored lookbacks on a flat market (Haug 4.15-4.16: Goldman-Sosin-Gatto for
// floating strikes, Conze-Viswanathan for fixed), fresh or seasoned with a running extreme.
inline double lookback(const flat_bs& p, bool floating, bool call, double K, double extreme)
{
  double const S = p.s;
  double const b = p.r - p.q;
  double const v2 = p.vol * p.vol;
  double const sd = p.vol * std::sqrt(p.T);
  double const dq = std::exp(-p.q * p.T);
  double const dr = std::exp(-p.r * p.T);
  auto const d1 = [&](double x) { return (std::log(S / x) + (b + 0.5 * v2) * p.T) / sd; };
  double const c = 2.0 * b * std::sqrt(p.T) / p.vol;
  auto const power = [&](double x) { return std::pow(S / x, -2.0 * b / v2); };
  // The reflection terms of the maximum (up) and the minimum (down) formulas.
  auto const bracket_up = [&](double x) {
    return S * dr * v2 / (2.0 * b) * (-power(x) * ncdf(d1(x) - c) + std::exp(b * p.T) * ncdf(d1(x)));
  };
  auto const bracket_down = [&](double x) {
    return S * dr * v2 / (2.0 * b) * (power(x) * ncdf(-d1(x) + c) - std::exp(b * p.T) * ncdf(-d1(x)));
  };
  if (floating && call) {  // S_T - min; extreme = running min
    return S * dq * ncdf(d1(extreme)) - extreme * dr * ncdf(d1(extreme) - sd) + bracket_down(extreme);
  }
  if (floating) {  // max - S_T; extreme = running max
    return extreme * dr * ncdf(-(d1(extreme) - sd)) - S * dq * ncdf(-d1(extreme)) + bracket_up(extreme);
  }
  if (call) {  // max(M - K, 0); extreme = running max
    double const x = std::max(K, extreme);
    return dr * (x - K) + S * dq * ncdf(d1(x)) - x * dr * ncdf(d1(x) - sd) + bracket_up(x);
  }
  double const x = std::min(K, extreme);  // max(K - m, 0); extreme = running min
  return dr * (K - x) - S * dq * ncdf(-d1(x)) + x * dr * ncdf(-(d1(x) - sd)) + bracket_down(x);
}

}  // namespace mcprice::testing
