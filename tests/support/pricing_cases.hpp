#pragma once
// A table of vanilla and digital trades with their Black-Scholes references, shared by the
// CPU and GPU suites. References use the market's own curves, so term structures are tested
// through the same interpolation the engine uses.
#include "mcprice/black_scholes.hpp"
#include "mcprice/market.hpp"
#include "mcprice/market_reader.hpp"
#include "mcprice/portfolio.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace mcprice::testing {

inline market_data test_market()
{
  return parse_market(R"({
    "discount_curve": {"times": [0.5, 1, 2, 5], "zero_rates": [0.040, 0.042, 0.045, 0.047]},
    "assets": {
      "FLAT": {"spot": 100, "dividend_yield": 0.02, "vol": 0.2},
      "CURVE": {"spot": 50, "dividend_yield": {"times": [1, 3], "rates": [0.01, 0.015]},
                "vol": {"times": [0.5, 1, 2], "vols": [0.25, 0.22, 0.21]}},
      "DEAD": {"spot": 80, "vol": 0.0},
      "HIGH": {"spot": 10, "dividend_yield": 0.05, "vol": 0.9}
    }})",
                      "test-market");
}

inline trade make_trade(std::string id, product_kind p, option_type type, std::string asset, double strike,
                        double maturity)
{
  trade t;
  t.id = std::move(id);
  t.product = p;
  t.type = type;
  t.underlyings = {std::move(asset)};
  t.strike = strike;
  t.maturity = maturity;
  return t;
}

inline portfolio reference_book()
{
  using P = product_kind;
  using O = option_type;
  portfolio book;
  book.trades = {
      make_trade("call-atm", P::vanilla, O::call, "FLAT", 100, 1),
      make_trade("put-itm", P::vanilla, O::put, "FLAT", 110, 2),
      make_trade("call-otm", P::vanilla, O::call, "FLAT", 160, 0.5),
      make_trade("curve-call", P::vanilla, O::call, "CURVE", 50, 1.5),
      make_trade("curve-put", P::vanilla, O::put, "CURVE", 55, 3),
      make_trade("curve-short-call", P::vanilla, O::call, "CURVE", 45, 0.25),
      make_trade("dead-call", P::vanilla, O::call, "DEAD", 70, 1),
      make_trade("high-vol-put", P::vanilla, O::put, "HIGH", 12, 4),
      make_trade("cash-dig-call", P::digital, O::call, "FLAT", 105, 1),
      make_trade("cash-dig-put", P::digital, O::put, "CURVE", 48, 2),
      make_trade("asset-dig-call", P::digital, O::call, "FLAT", 95, 1),
      make_trade("asset-dig-put", P::digital, O::put, "HIGH", 9, 0.75),
  };
  book.trades[1].notional = -2.5;
  book.trades[8].payout = 10.0;
  book.trades[10].digital = digital_kind::asset;
  book.trades[11].digital = digital_kind::asset;
  return book;
}

// `copies` copies of the reference book, ids suffixed -0, -1, ...: a large book of known trades.
inline portfolio repeated_reference_book(int copies)
{
  portfolio book;
  auto const reference = reference_book();
  for (int copy = 0; copy < copies; ++copy) {
    for (auto t : reference.trades) {
      t.id += "-" + std::to_string(copy);
      book.trades.push_back(t);
    }
  }
  return book;
}

inline double reference_price(const trade& t, const market_data& m)
{
  const asset& a = m.assets()[*m.find(t.underlyings.front())];
  double const T = t.maturity;
  double const df = m.discount().discount(T);
  black_scholes::inputs const in{a.spot * a.dividend.discount(T) / df, *t.strike, a.vol.total_variance(T), df};
  bool const call = t.type == option_type::call;
  double v = 0.0;
  if (t.product == product_kind::vanilla) v = call ? black_scholes::call(in) : black_scholes::put(in);
  else if (t.digital == digital_kind::cash)
    v = call ? black_scholes::cash_digital_call(in, t.payout) : black_scholes::cash_digital_put(in, t.payout);
  else v = call ? black_scholes::asset_digital_call(in) : black_scholes::asset_digital_put(in);
  return v * t.notional;
}

// Black-Scholes Greeks with the flat equivalents of the market's curves at the trade's expiry
// (r(T), q(T), sigma(T) held as time passes: the engine's convention, docs/greeks.md), x notional.
inline black_scholes::sensitivities reference_greeks(const trade& t, const market_data& m)
{
  const asset& a = m.assets()[*m.find(t.underlyings.front())];
  double const T = t.maturity;
  // A dead asset is the limit of a vanishing vol.
  double const vol = std::max(std::sqrt(a.vol.total_variance(T) / T), 1e-9);
  black_scholes::flat_inputs const in{
      a.spot, *t.strike, T, -std::log(m.discount().discount(T)) / T, -std::log(a.dividend.discount(T)) / T, vol};
  using K = black_scholes::european_kind;
  bool const call = t.type == option_type::call;
  K kind = call ? K::call : K::put;
  if (t.product == product_kind::digital) {
    if (t.digital == digital_kind::cash) kind = call ? K::cash_digital_call : K::cash_digital_put;
    else kind = call ? K::asset_digital_call : K::asset_digital_put;
  }
  auto g = black_scholes::greeks(kind, in, t.payout);
  for (double* x : {&g.price, &g.delta, &g.gamma, &g.vega, &g.theta, &g.rho}) *x *= t.notional;
  return g;
}

// |mc - ref| <= 4 se + allowance. Exact log-normal stepping has no discretisation bias; the
// allowance covers float path arithmetic (about 1e-6 of the price scale).
inline double price_tolerance(double std_error, double reference)
{
  return 4.0 * std_error + 2e-6 * std::max(1.0, std::abs(reference));
}

}  // namespace mcprice::testing
