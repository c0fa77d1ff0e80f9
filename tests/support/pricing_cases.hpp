#pragma once
// A table of vanilla and digital trades with their Black-Scholes references, shared by the
// CPU and GPU suites. References use the market's own curves, so term structures are tested
// through the same interpolation the engine uses.
#include "mcprice/black_scholes.hpp"
#include "mcprice/market.hpp"
#include "mcprice/market_reader.hpp"
#include "mcprice/portfolio.hpp"

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
    }})", "test-market");
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

// |mc - ref| <= 4 se + allowance. Exact log-normal stepping has no discretisation bias; the
// allowance covers float path arithmetic (about 1e-6 of the price scale).
inline double price_tolerance(double std_error, double reference)
{
  return 4.0 * std_error + 2e-6 * std::max(1.0, std::abs(reference));
}

}  // namespace mcprice::testing
