#pragma once
// From a validated autocallable on several underlyings (a worst-of) to its kernel record, its
// step rows (every asset's step between the grid's times, then the observation rows), its
// assets' initial levels and its correlation factor. GBM assets step exactly; with a local-vol
// asset among them the trade goes to the local-vol worst-of, whose rows are local-vol steps, and
// with a Heston asset to the Heston worst-of, whose rows are Heston steps.
#include "mcprice/kernels/greeks/path_greeks.hpp"
#include "mcprice/kernels/models/heston_worst_of_path.hpp"
#include "mcprice/kernels/models/local_vol_worst_of_path.hpp"
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
  std::vector<basic_path_greek_step<Real>> greek_steps;  // with Greeks: parallel to steps
  std::vector<Real> log_initials;                        // ln(L_i / S_i(0))
  std::vector<Real> spots;                               // S_i(0)
  std::vector<Real> factor;  // assets x assets, row-major (with Greeks, then the bumped ones)
  double scale;              // P(0,T) x notional
  std::int64_t paths;
};

template <typename Real>
basic_worst_of_job<Real> make_worst_of_job(const trade& t, const market_data& market, const engine_options& opt);

// Real: the path precision (float, or double under --precision double).
template <typename Real>
struct basic_local_vol_worst_of_job {
  basic_local_vol_worst_of_trade<Real> kernel;  // first_block, first_step, first_asset, first_factor, first_grid: the batcher's
  std::vector<basic_local_vol_step<Real>> steps;
  // worst_of_asset_grids axes per asset (a GBM asset's have no times; the bumped ones are set with
  // Greeks), and the grids they read (null where none), whose place the batcher sets in `first`.
  std::vector<basic_local_vol_axes<Real>> grids;
  std::vector<const local_vol_grid*> grid_sources;
  std::vector<Real> log_initials;
  std::vector<Real> spots;
  std::vector<Real> factor;
  double scale;
  std::int64_t paths;
};
using local_vol_worst_of_job = basic_local_vol_worst_of_job<float>;

template <typename Real>
basic_local_vol_worst_of_job<Real> make_local_vol_worst_of_job(const trade& t, const market_data& market,
                                                               const engine_options& opt);

// Real: the path precision (float, or double under --precision double).
template <typename Real>
struct basic_heston_worst_of_job {
  basic_heston_worst_of_trade<Real> kernel;  // first_block, first_step, first_asset, first_factor: the batcher's
  std::vector<basic_heston_step<Real>> steps;
  std::vector<basic_heston_worst_of_asset<Real>> assets;  // v0, vol of vol (a GBM asset: 1 and 0), jump law
  std::vector<Real> jump_counts;                          // jump trades: lambda dt per step row (empty without)
  std::vector<basic_heston_worst_of_greek_row<Real>> greek_rows;  // with Greeks: parallel to the step rows
  // With a local-vol asset: local-vol rows parallel to the step rows, and its grids as the
  // local-vol worst-of's (empty without).
  std::vector<basic_local_vol_step<Real>> local_vol_steps;
  std::vector<basic_local_vol_axes<Real>> grids;
  std::vector<const local_vol_grid*> grid_sources;
  std::vector<Real> log_initials;
  std::vector<Real> spots;
  std::vector<Real> factor;
  double scale;
  std::int64_t paths;
};
using heston_worst_of_job = basic_heston_worst_of_job<float>;

// Equal steps to maturity beside the fixings, as single-asset Heston paths take; jump assets
// (Merton, Bates) among the underlyings step their jumps exactly over each step, and local-vol
// assets beside Heston or jump ones take their local-vol rows and grids. --rng sobol:
// at most worst_of_sobol_assets / 2 underlyings (two normals an asset a step). With Greeks (up
// to max_basket_greek_assets underlyings): theta's first rows after the steps, the Greek rows
// and the vega levels (heston_worst_of_greeks.hpp), in either precision.
template <typename Real>
basic_heston_worst_of_job<Real> make_heston_worst_of_job(const trade& t, const market_data& market,
                                                         const engine_options& opt);

}  // namespace mcprice::detail
