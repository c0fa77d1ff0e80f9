#pragma once
// Closed forms under Black-Scholes with term structures, in Black's forward form: the
// reference for tests and a sanity check for users. F = S Q(T) / P(T), w = total variance.
namespace mcprice::black_scholes {

struct inputs {
  double forward;
  double strike;
  double total_variance;
  double discount;  // P(0, T)
};

double normal_cdf(double x);
double call(const inputs& in);
double put(const inputs& in);
double cash_digital_call(const inputs& in, double payout);  // payout 1{S_T > K}
double cash_digital_put(const inputs& in, double payout);
double asset_digital_call(const inputs& in);  // S_T 1{S_T > K}
double asset_digital_put(const inputs& in);

}  // namespace mcprice::black_scholes
