#pragma once
// Heston's semi-analytic European call (Heston 1993), with the characteristic function in the
// "little trap" form of Albrecher, Mayer, Schoutens and Tistaert (2007), integrated numerically.
#include "mcprice/market_reader.hpp"
#include "mcprice/portfolio.hpp"

#include <cmath>
#include <complex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace mcprice::testing {

// With lambda > 0, Bates: log-normal jumps (intensity lambda, log size mean jump_mean, standard
// deviation jump_vol) with the compensated drift.
struct heston_case {
  double s, k, t, r, q, v0, kappa, theta, xi, rho;
  double lambda{0.0}, jump_mean{0.0}, jump_vol{0.0};
};

// The jumps' factor of the log spot's characteristic function at u (complex: P1 takes u - i).
inline std::complex<double> jump_factor(const heston_case& c, std::complex<double> u)
{
  std::complex<double> const i(0.0, 1.0);
  double const kappa_j = std::expm1(c.jump_mean + 0.5 * c.jump_vol * c.jump_vol);
  return std::exp(c.lambda * c.t * (std::exp(i * u * c.jump_mean - 0.5 * u * u * c.jump_vol * c.jump_vol) - 1.0) -
                  i * u * c.lambda * kappa_j * c.t);
}

inline double heston_probability(const heston_case& c, int j)
{
  using cd = std::complex<double>;
  cd const i(0.0, 1.0);
  double const u = j == 1 ? 0.5 : -0.5;
  double const b = j == 1 ? c.kappa - c.rho * c.xi : c.kappa;
  double const a = c.kappa * c.theta;
  double const x = std::log(c.s);
  auto integrand = [&](double phi) {
    cd const rp = c.rho * c.xi * i * phi;
    cd const d = std::sqrt((rp - b) * (rp - b) - c.xi * c.xi * (2.0 * u * i * phi - phi * phi));
    cd const g = (b - rp - d) / (b - rp + d);
    cd const e = std::exp(-d * c.t);
    cd const C = (c.r - c.q) * i * phi * c.t +
                 a / (c.xi * c.xi) * ((b - rp - d) * c.t - 2.0 * std::log((1.0 - g * e) / (1.0 - g)));
    cd const D = (b - rp - d) / (c.xi * c.xi) * (1.0 - e) / (1.0 - g * e);
    // P1 is P2's law under the share measure: phi(u - i) / phi(-i), and the jumps' phi(-i) is 1.
    cd const jumps = c.lambda > 0.0 ? jump_factor(c, j == 1 ? cd(phi, -1.0) : cd(phi, 0.0)) : cd(1.0, 0.0);
    cd const f = std::exp(C + D * c.v0 + i * phi * x) * jumps;
    return std::real(std::exp(-i * phi * std::log(c.k)) * f / (i * phi));
  };
  // Composite Simpson on (0, 200]: the integrand decays fast and is smooth at the origin.
  int const n = 20000;
  double const lo = 1e-8;
  double const hi = 200.0;
  double const h = (hi - lo) / n;
  double sum = integrand(lo) + integrand(hi);
  for (int k = 1; k < n; ++k) sum += (k % 2 == 1 ? 4.0 : 2.0) * integrand(lo + k * h);
  return 0.5 + sum * h / 3.0 / M_PI;
}

inline double heston_call(const heston_case& c)
{
  return c.s * std::exp(-c.q * c.t) * heston_probability(c, 1) - c.k * std::exp(-c.r * c.t) * heston_probability(c, 2);
}

inline double heston_put(const heston_case& c)
{
  return heston_call(c) - c.s * std::exp(-c.q * c.t) + c.k * std::exp(-c.r * c.t);
}

// A Heston call's Greeks as the scenario lanes define them (model vega: sqrt(v0) and sqrt(theta)
// moving together; theta: calendar time passing), by central differences of the semi-analytic
// price in double.
struct heston_call_greeks {
  double delta, gamma, vega, theta, rho;
};
inline heston_call_greeks heston_call_greeks_of(const heston_case& base)
{
  auto call = [&](auto change) {
    auto c = base;
    change(c);
    return heston_call(c);
  };
  auto level = [](double x, double h) { return (std::sqrt(x) + h) * (std::sqrt(x) + h); };
  auto vol_level = [&](double h) {
    return call([&](auto& c) {
      c.v0 = level(c.v0, h);
      c.theta = level(c.theta, h);
    });
  };
  heston_call_greeks g{};
  g.delta = (call([](auto& c) { c.s += 0.01; }) - call([](auto& c) { c.s -= 0.01; })) / 0.02;
  g.gamma = (call([](auto& c) { c.s += 0.5; }) - 2 * heston_call(base) + call([](auto& c) { c.s -= 0.5; })) / 0.25;
  g.vega = (vol_level(1e-3) - vol_level(-1e-3)) / 2e-3;
  g.rho = (call([](auto& c) { c.r += 1e-4; }) - call([](auto& c) { c.r -= 1e-4; })) / 2e-4;
  g.theta = (call([](auto& c) { c.t -= 1e-3; }) - call([](auto& c) { c.t += 1e-3; })) / 2e-3;
  return g;
}

// kappa = 0 (no mean reversion), theta = 0 (variance drifts to zero), v0 = 0 (starts at zero),
// rho = +1 and -1 (perfect correlation), a huge vol of vol over five years, and a short maturity
// with fast mean reversion: the QE step's limits and both of its branches.
inline std::vector<heston_case> heston_edge_cases()
{
  return {{100, 100, 1, 0.02, 0.0, 0.04, 0.0, 0.04, 0.5, -0.7},  {100, 100, 1, 0.02, 0.0, 0.04, 2.0, 0.0, 0.5, -0.7},
          {100, 100, 1, 0.02, 0.0, 0.0, 2.0, 0.04, 0.5, -0.7},   {100, 100, 1, 0.02, 0.0, 0.04, 2.0, 0.04, 0.5, 1.0},
          {100, 100, 1, 0.02, 0.0, 0.04, 2.0, 0.04, 0.5, -1.0},  {100, 100, 5, 0.02, 0.0, 0.09, 0.5, 0.09, 2.0, -0.9},
          {100, 80, 0.1, 0.02, 0.0, 0.04, 10.0, 0.04, 1.0, -0.5}};
}

// A one-asset market "H" with the case's Heston parameters, and a trade on it.
inline market_data heston_market(const heston_case& c)
{
  std::ostringstream m;
  m.precision(17);
  m << R"({"rate": )" << c.r << R"(, "assets": {"H": {"spot": )" << c.s << R"(, "dividend_yield": )" << c.q
    << R"(, "model": "heston", "heston": {"v0": )" << c.v0 << R"(, "kappa": )" << c.kappa << R"(, "theta": )" << c.theta
    << R"(, "xi": )" << c.xi << R"(, "rho": )" << c.rho << "}";
  if (c.lambda > 0.0) {
    m << R"(, "jumps": {"intensity": )" << c.lambda << R"(, "mean": )" << c.jump_mean << R"(, "vol": )" << c.jump_vol
      << "}";
  }
  m << "}}}";
  return parse_market(m.str(), "heston");
}

inline trade heston_trade_of(std::string id, product_kind p, option_type type, double strike, double maturity)
{
  trade t;
  t.id = std::move(id);
  t.product = p;
  t.type = type;
  t.underlyings = {"H"};
  t.strike = strike;
  t.maturity = maturity;
  return t;
}

}  // namespace mcprice::testing
