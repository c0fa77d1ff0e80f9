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

// Price and Greeks with flat parameters (QuantLib's units: vega per 1.00 of vol, theta per
// year of time passing, rho per 1.00 of the discount rate, dividend yield held).
struct flat_inputs {
  double spot;
  double strike;
  double maturity;
  double rate;
  double dividend_yield;
  double vol;
};

enum class european_kind { call, put, cash_digital_call, cash_digital_put, asset_digital_call, asset_digital_put };

struct sensitivities {
  double price;
  double delta;
  double gamma;
  double vega;
  double theta;
  double rho;
};

// Needs maturity > 0 and vol > 0. Cash digitals pay `payout`.
sensitivities greeks(european_kind kind, const flat_inputs& in, double payout = 1.0);

}  // namespace mcprice::black_scholes
