#include "mcprice/black_scholes.hpp"

#include <cmath>

namespace mcprice::black_scholes {
namespace {

struct d_terms {
  double d1;
  double d2;
};

// With no variance left the option is worth its discounted intrinsic value: d = +-inf.
d_terms d_of(const inputs& in)
{
  double const sd = std::sqrt(in.total_variance);
  if (sd <= 0.0 || in.strike <= 0.0) {
    double const inf = in.forward > in.strike ? HUGE_VAL : -HUGE_VAL;
    return {inf, inf};
  }
  double const d1 = (std::log(in.forward / in.strike) + 0.5 * in.total_variance) / sd;
  return {d1, d1 - sd};
}

}  // namespace

double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

double call(const inputs& in)
{
  auto const d = d_of(in);
  return in.discount * (in.forward * normal_cdf(d.d1) - in.strike * normal_cdf(d.d2));
}

double put(const inputs& in)
{
  auto const d = d_of(in);
  return in.discount * (in.strike * normal_cdf(-d.d2) - in.forward * normal_cdf(-d.d1));
}

double cash_digital_call(const inputs& in, double payout) { return in.discount * payout * normal_cdf(d_of(in).d2); }

double cash_digital_put(const inputs& in, double payout) { return in.discount * payout * normal_cdf(-d_of(in).d2); }

double asset_digital_call(const inputs& in) { return in.discount * in.forward * normal_cdf(d_of(in).d1); }

double asset_digital_put(const inputs& in) { return in.discount * in.forward * normal_cdf(-d_of(in).d1); }

sensitivities greeks(european_kind kind, const flat_inputs& in, double payout)
{
  double const S = in.spot;
  double const T = in.maturity;
  double const sd = in.vol * std::sqrt(T);
  double const D = std::exp(-in.rate * T);
  double const Q = std::exp(-in.dividend_yield * T);
  double const d1 = (std::log(S / in.strike) + (in.rate - in.dividend_yield) * T) / sd + 0.5 * sd;
  double const d2 = d1 - sd;
  constexpr double inv_sqrt_2pi = 0.39894228040143267794;
  double const n1 = inv_sqrt_2pi * std::exp(-0.5 * d1 * d1);
  double const n2 = inv_sqrt_2pi * std::exp(-0.5 * d2 * d2);
  double const N1 = normal_cdf(d1);
  double const N2 = normal_cdf(d2);
  sensitivities g{};
  // Price, delta and gamma per payoff; vega = sigma T S^2 gamma and rho = T (S delta - V) hold for
  // every European payoff under GBM, theta follows from the Black-Scholes equation.
  switch (kind) {
    case european_kind::call:
      g = {S * Q * N1 - in.strike * D * N2, Q * N1, Q * n1 / (S * sd), 0, 0, 0};
      break;
    case european_kind::put:
      g = {in.strike * D * (1.0 - N2) - S * Q * (1.0 - N1), Q * (N1 - 1.0), Q * n1 / (S * sd), 0, 0, 0};
      break;
    case european_kind::cash_digital_call:
      g = {payout * D * N2, payout * D * n2 / (S * sd), -payout * D * n2 * d1 / (S * S * sd * sd), 0, 0, 0};
      break;
    case european_kind::cash_digital_put:
      g = {payout * D * (1.0 - N2), -payout * D * n2 / (S * sd), payout * D * n2 * d1 / (S * S * sd * sd), 0, 0, 0};
      break;
    case european_kind::asset_digital_call:
      g = {S * Q * N1, Q * N1 + Q * n1 / sd, -Q * n1 * d2 / (S * sd * sd), 0, 0, 0};
      break;
    case european_kind::asset_digital_put:
      g = {S * Q * (1.0 - N1), Q * (1.0 - N1) - Q * n1 / sd, Q * n1 * d2 / (S * sd * sd), 0, 0, 0};
      break;
  }
  g.vega = in.vol * T * S * S * g.gamma;
  g.rho = T * (S * g.delta - g.price);
  g.theta = in.rate * g.price - (in.rate - in.dividend_yield) * S * g.delta - 0.5 * in.vol * in.vol * S * S * g.gamma;
  return g;
}

}  // namespace mcprice::black_scholes
