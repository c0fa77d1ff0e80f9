#pragma once
// Payoffs that depend on the terminal spot only, paid at maturity.
#include "mcprice/kernels/detail/host_device.hpp"

#include <cstdint>

namespace mcprice {

enum class terminal_payoff : std::uint8_t {
  call,
  put,
  cash_digital_call,
  cash_digital_put,
  asset_digital_call,
  asset_digital_put,
};

struct terminal_payoff_params {
  terminal_payoff kind;
  float strike;
  float payout;  // cash digitals
};

// The payoff of one kind, known at compile time: kernels dispatch once per canonical block
// and run branch-free per path.
template <terminal_payoff Kind>
MCPRICE_HD MCPRICE_INLINE float evaluate(const terminal_payoff_params& p, float s)
{
  if constexpr (Kind == terminal_payoff::call) return s > p.strike ? s - p.strike : 0.0F;
  if constexpr (Kind == terminal_payoff::put) return p.strike > s ? p.strike - s : 0.0F;
  if constexpr (Kind == terminal_payoff::cash_digital_call) return s > p.strike ? p.payout : 0.0F;
  if constexpr (Kind == terminal_payoff::cash_digital_put) return s < p.strike ? p.payout : 0.0F;
  if constexpr (Kind == terminal_payoff::asset_digital_call) return s > p.strike ? s : 0.0F;
  if constexpr (Kind == terminal_payoff::asset_digital_put) return s < p.strike ? s : 0.0F;
}

}  // namespace mcprice
