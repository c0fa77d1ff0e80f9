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

double cash_digital_call(const inputs& in, double payout)
{
  return in.discount * payout * normal_cdf(d_of(in).d2);
}

double cash_digital_put(const inputs& in, double payout)
{
  return in.discount * payout * normal_cdf(-d_of(in).d2);
}

double asset_digital_call(const inputs& in)
{
  return in.discount * in.forward * normal_cdf(d_of(in).d1);
}

double asset_digital_put(const inputs& in)
{
  return in.discount * in.forward * normal_cdf(-d_of(in).d1);
}

}  // namespace mcprice::black_scholes
