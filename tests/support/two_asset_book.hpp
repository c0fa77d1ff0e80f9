#pragma once
// Best-of and worst-of calls and puts on two correlated GBM assets with Stulz's closed form, on
// a flat market: shared by the CPU and GPU suites (double paths, docs/precision.md).
#include "mcprice/market_reader.hpp"
#include "mcprice/portfolio.hpp"
#include "path_book.hpp"
#include "stulz_reference.hpp"

#include <string>
#include <vector>

namespace mcprice::testing {

inline constexpr two_assets stulz_pair{100, 95, 0.01, 0.02, 0.3, 0.2, 0.5, 0.04, 1.5};

inline market_data stulz_market()
{
  return parse_market(R"({"rate": 0.04, "assets": {
      "A": {"spot": 100, "dividend_yield": 0.01, "vol": 0.3},
      "B": {"spot": 95, "dividend_yield": 0.02, "vol": 0.2}},
      "correlation": {"A,B": 0.5}})",
                      "stulz");
}

inline std::vector<referenced_trade> stulz_book()
{
  std::vector<referenced_trade> book;
  for (bool max : {true, false}) {
    for (bool call : {true, false}) {
      trade t;
      t.id = std::string(max ? "best-" : "worst-") + (call ? "call" : "put");
      t.product = max ? product_kind::best_of : product_kind::worst_of;
      t.type = call ? option_type::call : option_type::put;
      t.underlyings = {"A", "B"};
      t.strike = 100.0;
      t.maturity = stulz_pair.T;
      book.push_back({t, call ? stulz_call(stulz_pair, 100.0, max) : stulz_put(stulz_pair, 100.0, max)});
    }
  }
  return book;
}

}  // namespace mcprice::testing
