#pragma once
// From a validated vanilla/digital trade and the market to the kernel's trade record, plus
// the double-precision factor that turns the mean payoff into a price.
#include "statistics/greek_statistics.hpp"
#include "mcprice/kernels/models/european_gbm.hpp"
#include "mcprice/market.hpp"
#include "mcprice/portfolio.hpp"
#include "mcprice/settings.hpp"

namespace mcprice::detail {

struct european_job {
  european_gbm_trade kernel;  // first_block is set by the batcher
  double scale;               // P(0,T) x notional (x payout for cash digitals)
  std::int64_t paths;         // paths simulated: samples, or twice that with antithetic pairs
  greek_inputs greeks;        // what turns the Greek channels' sums into Greeks
};

// `a` is the trade's underlying, already looked up in `market`.
european_job make_european_job(const trade& t, const asset& a, const market_data& market, const engine_options& opt);

}  // namespace mcprice::detail
