#pragma once
// The discrete geometric-average Asian under Black-Scholes with term structures, in closed form:
// ln S at the fixings is jointly normal (means from the forwards, covariances from the total
// variance at the earlier time). The engine uses it as the control variate of arithmetic
// Asians; users and tests may use it as a reference.
#include "mcprice/market.hpp"

#include <vector>

namespace mcprice {

// Price per unit notional of a geometric Asian on asset `a` with fixing times `fixings`
// (0 = today's spot), paid at T. Fixed strike: max(G - K, 0) (call); floating: max(S_T - G, 0).
double geometric_asian_price(const market_data& market, const asset& a, const std::vector<double>& fixings, double T,
                             double strike, bool call, bool floating);

}  // namespace mcprice
