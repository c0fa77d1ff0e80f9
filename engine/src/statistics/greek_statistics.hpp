#pragma once
// From the sums of a European's price, delta and gamma channels (european_greeks.hpp) to its
// Greeks and their standard errors. Host-only, tested without a GPU.
#include "mcprice/kernels/greeks/basket_greeks.hpp"
#include "mcprice/kernels/greeks/european_greeks.hpp"
#include "mcprice/kernels/greeks/path_greeks.hpp"
#include "mcprice/results.hpp"

#include <cstdint>
#include <vector>

namespace mcprice::detail {

// What turns the channels into Greeks: flat equivalents at the trade's expiry.
struct greek_inputs {
  double spot{0.0};
  double maturity{0.0};
  double rate{0.0};       // r(T): -ln P(0,T) / T
  double carry{0.0};      // r(T) - q(T): ln(F/S0) / T
  double log_stdev{0.0};  // a = sqrt(w), exactly as the kernel forms it (float)
  bool pathwise{true};
};

// price_sums and greek_sums over `samples` samples; scale as in make_result.
trade_greeks make_greeks(const moments& price_sums, const greek_moments& greek_sums, std::int64_t samples, double scale,
                         const greek_inputs& in);

// scale x the sample mean of `samples` samples, and its standard error.
greek_estimate estimate(const moments& m, std::int64_t samples, double scale);

// A path trade's Greeks: each a sample mean of its own channel, times scale.
trade_greeks make_path_greeks(const path_greek_moments& sums, std::int64_t samples, double scale, greek_method method);

// A multi-asset trade's Greeks from its channels' sums (basket_channels order), n assets.
trade_greeks make_basket_greeks(const std::vector<moments>& channels, int n, std::int64_t samples, double scale);

}  // namespace mcprice::detail
