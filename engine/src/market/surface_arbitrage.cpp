#include "market/surface_arbitrage.hpp"

#include "io/text_values.hpp"
#include "mcprice/black_scholes.hpp"

#include <cmath>
#include <vector>

namespace mcprice::detail {
namespace {

// Undiscounted call prices along an expiry's strikes, in units of the forward.
std::vector<double> calls_of(const implied_vol_surface& s, std::size_t i, double forward)
{
  std::vector<double> c;
  for (std::size_t j = 0; j < s.strikes.size(); ++j) {
    double const w = s.vols[i][j] * s.vols[i][j] * s.expiries[i];
    c.push_back(black_scholes::call({1.0, s.strikes[j] / forward, w, 1.0}));
  }
  return c;
}

std::optional<surface_violation> butterfly(const implied_vol_surface& s, std::size_t i, double forward)
{
  // Slopes of the call price in the strike (per unit of forward): in [-1, 0] and rising.
  constexpr double tolerance = 1e-12;
  std::vector<double> const c = calls_of(s, i, forward);
  double previous = -1.0;
  for (std::size_t j = 0; j + 1 < c.size(); ++j) {
    double const slope = (c[j + 1] - c[j]) / ((s.strikes[j + 1] - s.strikes[j]) / forward);
    if (slope > tolerance) return surface_violation{i, j + 1, "call prices rise with the strike (butterfly arbitrage)"};
    if (slope < previous - tolerance) {
      return surface_violation{i, j, j == 0 ? "a call spread is worth more than its width (butterfly arbitrage)"
                                            : "call prices are not convex in the strike (butterfly arbitrage)"};
    }
    previous = slope;
  }
  return std::nullopt;
}

// Total variance of row i at log-moneyness k, linear in k between the row's strikes; nullopt
// outside them (the check does not extrapolate).
std::optional<double> variance_at(const implied_vol_surface& s, std::size_t i, double forward, double k)
{
  double const t = s.expiries[i];
  for (std::size_t j = 0; j + 1 < s.strikes.size(); ++j) {
    double const k0 = std::log(s.strikes[j] / forward);
    double const k1 = std::log(s.strikes[j + 1] / forward);
    if (k < k0 || k > k1) continue;
    double const w0 = s.vols[i][j] * s.vols[i][j] * t;
    double const w1 = s.vols[i][j + 1] * s.vols[i][j + 1] * t;
    return w0 + (w1 - w0) * (k - k0) / (k1 - k0);
  }
  if (s.strikes.size() == 1 && std::abs(k - std::log(s.strikes[0] / forward)) < 1e-15) {
    return s.vols[i][0] * s.vols[i][0] * t;
  }
  return std::nullopt;
}

std::optional<surface_violation> calendar(const implied_vol_surface& s, std::size_t i,
                                          const std::function<double(double)>& forward)
{
  double const f_before = forward(s.expiries[i - 1]);
  double const f = forward(s.expiries[i]);
  for (std::size_t j = 0; j < s.strikes.size(); ++j) {
    double const k = std::log(s.strikes[j] / f);
    auto const before = variance_at(s, i - 1, f_before, k);
    double const w = s.vols[i][j] * s.vols[i][j] * s.expiries[i];
    if (before && w < *before * (1.0 - 1e-12)) {
      return surface_violation{i, j,
                               "total implied variance " + shown(w) + " is below " + shown(*before) +
                                   " at the same forward moneyness at expiry " + shown(s.expiries[i - 1]) +
                                   " (calendar arbitrage)"};
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<surface_violation> find_surface_arbitrage(const implied_vol_surface& s,
                                                        const std::function<double(double)>& forward)
{
  for (std::size_t i = 0; i < s.expiries.size(); ++i) {
    if (auto v = butterfly(s, i, forward(s.expiries[i]))) return v;
    if (i > 0) {
      if (auto v = calendar(s, i, forward)) return v;
    }
  }
  return std::nullopt;
}

}  // namespace mcprice::detail
