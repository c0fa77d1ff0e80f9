// Closed forms against textbook values (Hull, "Options, Futures and Other Derivatives").
#include "mcprice/black_scholes.hpp"
#include "catch.hpp"

#include <cmath>

namespace bs = mcprice::black_scholes;

namespace {
bs::inputs make(double s, double k, double r, double q, double vol, double t)
{
  double const df = std::exp(-r * t);
  return {s * std::exp(-q * t) / df, k, vol * vol * t, df};
}
}  // namespace

TEST_CASE("Black-Scholes call and put match published values")
{
  // Hull, example 15.6: S=42, K=40, r=10%, sigma=20%, T=0.5: c=4.76, p=0.81.
  CHECK(std::abs(bs::call(make(42, 40, 0.10, 0, 0.2, 0.5)) - 4.7594) < 1e-4);
  CHECK(std::abs(bs::put(make(42, 40, 0.10, 0, 0.2, 0.5)) - 0.8086) < 1e-4);
  // The classic ATM case: S=K=100, r=5%, sigma=20%, T=1: 10.450584.
  CHECK(std::abs(bs::call(make(100, 100, 0.05, 0, 0.2, 1)) - 10.450584) < 1e-6);
}

TEST_CASE("put-call parity and digital decomposition hold")
{
  auto const in = make(100, 95, 0.03, 0.01, 0.25, 2);
  double const parity = bs::call(in) - bs::put(in);
  CHECK(std::abs(parity - in.discount * (in.forward - in.strike)) < 1e-12);
  // call = asset digital - K x cash digital
  double const decomposed = bs::asset_digital_call(in) - in.strike * bs::cash_digital_call(in, 1.0);
  CHECK(std::abs(bs::call(in) - decomposed) < 1e-12);
  CHECK(std::abs(bs::cash_digital_call(in, 1.0) + bs::cash_digital_put(in, 1.0) - in.discount) < 1e-14);
}

TEST_CASE("with no variance left an option is worth its discounted intrinsic value")
{
  bs::inputs const in{110.0, 100.0, 0.0, 0.9};
  CHECK(std::abs(bs::call(in) - 9.0) < 1e-12);
  CHECK(bs::put(in) == 0.0);
}
