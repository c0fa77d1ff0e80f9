#pragma once
// From a validated autocallable on several GBM underlyings (a worst-of) to its kernel record,
// its step rows (every asset's exact step between the grid's times, then the observation rows),
// its assets' initial levels and its correlation factor.
#include "mcprice/kernels/greeks/path_greeks.hpp"
#include "mcprice/kernels/models/worst_of_path.hpp"
#include "mcprice/market.hpp"
#include "mcprice/portfolio.hpp"
#include "mcprice/settings.hpp"

#include <cstdint>
#include <vector>

namespace mcprice::detail {

// Real: the path precision of the records (float, or double for --precision double).
template <typename Real>
struct basic_worst_of_job {
  basic_worst_of_trade<Real> kernel;  // first_block, first_step, first_asset, first_factor: set by the batcher
  std::vector<basic_path_step<Real>> steps;
  std::vector<path_greek_step> greek_steps;  // with Greeks: parallel to steps
  std::vector<Real> log_initials;            // ln(L_i / S_i(0))
  std::vector<Real> spots;                   // S_i(0)
  std::vector<Real> factor;                  // assets x assets, row-major (with Greeks, then the bumped ones)
  double scale;                              // P(0,T) x notional
  std::int64_t paths;
};

template <typename Real>
basic_worst_of_job<Real> make_worst_of_job(const trade& t, const market_data& market, const engine_options& opt);

}  // namespace mcprice::detail
