#pragma once
// Static arbitrage in an implied volatility surface (docs/models.md): butterflies (call prices
// convex and falling in the strike, by at most the strike's rise) at each expiry, and calendar
// spreads (total implied variance rising with the expiry at a fixed forward moneyness).
#include "mcprice/market.hpp"

#include <functional>
#include <optional>
#include <string>

namespace mcprice::detail {

struct surface_violation {
  std::size_t expiry;  // row of the surface
  std::size_t strike;  // column
  std::string what;
};

// The first violation, expiry by expiry; `forward(t)` is the asset's forward to t.
std::optional<surface_violation> find_surface_arbitrage(const implied_vol_surface& s,
                                                        const std::function<double(double)>& forward);

}  // namespace mcprice::detail
