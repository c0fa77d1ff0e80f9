#pragma once
// A book of every single-asset path product on one flat GBM asset, each trade with its closed
// form: shared by the CPU and GPU suites (double paths, docs/precision.md).
#include "mcprice/market_reader.hpp"
#include "mcprice/portfolio.hpp"
#include "path_references.hpp"

#include <string>
#include <vector>

namespace mcprice::testing {

inline constexpr flat_bs flat_x{100.0, 0.05, 0.02, 0.25, 1.0};

inline market_data flat_x_market()
{
  return parse_market(R"({"rate": 0.05, "assets": {"X": {"spot": 100, "dividend_yield": 0.02, "vol": 0.25}}})", "flat");
}

inline trade on_x(std::string id, product_kind p, option_type type, double maturity = 1.0)
{
  trade t;
  t.id = std::move(id);
  t.product = p;
  t.type = type;
  t.underlyings = {"X"};
  t.maturity = maturity;
  return t;
}

struct referenced_trade {
  trade t;
  double reference;
};

inline std::vector<trade> trades_of(const std::vector<referenced_trade>& book)
{
  std::vector<trade> trades;
  for (auto const& b : book) trades.push_back(b.t);
  return trades;
}

// Continuous monitoring (the bridge) and 12 geometric fixings: closed forms hold at any step
// count, so the tolerance is 4 std errors.
inline std::vector<referenced_trade> path_book(const market_data& m)
{
  trade doc = on_x("do-call-rebate", product_kind::barrier, option_type::call);
  doc.strike = 100.0;
  doc.barrier = 85.0;
  doc.barrier_type = barrier_kind::down_out;
  doc.rebate = 3.0;
  trade touch = on_x("one-touch", product_kind::touch, option_type::one_touch);
  touch.barrier = 80.0;
  touch.barrier_type = barrier_kind::down;
  touch.payout = 10.0;
  touch.pay_at = payment_time::hit;
  trade asian = on_x("geo-asian", product_kind::asian, option_type::call);
  asian.strike = 100.0;
  asian.averaging = averaging_kind::geometric;
  asian.fixings = 12;
  trade lookback_call = on_x("float-lookback", product_kind::lookback, option_type::call);
  lookback_call.strike_type = strike_kind::floating;
  trade fixed_put = on_x("fixed-lookback-seasoned", product_kind::lookback, option_type::put);
  fixed_put.strike = 95.0;
  fixed_put.running_extreme = 92.0;
  std::vector<double> fixings;
  for (int i = 1; i <= 12; ++i) fixings.push_back(i / 12.0);
  return {{doc, knock_out_by_reflection(flat_x, 100.0, 85.0, true) + 3.0 * one_touch_at_hit(flat_x, 85.0, true)},
          {touch, 10.0 * one_touch_at_hit(flat_x, 80.0, true)},
          {asian, geometric_asian(m, m.assets()[0], fixings, 1.0, 100.0, true, false)},
          {lookback_call, lookback(flat_x, true, true, 0.0, 100.0)},
          {fixed_put, lookback(flat_x, false, false, 95.0, 92.0)}};
}

}  // namespace mcprice::testing
