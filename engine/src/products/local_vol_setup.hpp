#pragma once
// From a validated single-asset trade on a local_vol asset to the local vol kernel's record and
// its steps: the Heston path grid (fixings, and `steps` equal steps to maturity), each step's
// forward drift and times; the asset's grid (built with the market) goes to the surface table.
#include "mcprice/kernels/models/local_vol_path.hpp"
#include "mcprice/market.hpp"
#include "mcprice/portfolio.hpp"
#include "mcprice/settings.hpp"

#include <array>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace mcprice::detail {

template <typename Real>
struct basic_local_vol_job {
  basic_local_vol_trade<Real> kernel;  // first_block, first_step and surface.first are set by the batcher
  std::vector<basic_local_vol_step<Real>> steps;
  const local_vol_grid* grid{nullptr};  // the asset's, owned by the market
  // With --greeks (float): the asset's sticky-strike grids, in kernel.bumped's order.
  std::array<const local_vol_grid*, local_vol_bumped_grids> bumped{};
  double scale;
  std::int64_t paths;
};

// A family's view of the market's local-vol grids (market/market_surfaces.hpp): a trade's axes
// point at its grid's place there, and the family's tables name the table without a copy of it
// (each backend gives the address of its own: host memory, or the GPU's market buffers).
template <typename Real>
struct vol_pair_table {
  using real = Real;
  using value_type = basic_vol_pair<Real>;

  // Where grid g starts in the market's table.
  static std::int32_t place(const local_vol_grid& g)
  {
    if (g.first_pair < 0) throw std::logic_error("a local-vol grid outside its market's table of grids");
    return g.first_pair;
  }
};

template <typename T>
inline constexpr bool is_vol_pair_table = false;
template <typename Real>
inline constexpr bool is_vol_pair_table<vol_pair_table<Real>> = true;

// A grid's axes; `first` is set when its values are placed in a surface table.
template <typename Real>
basic_local_vol_axes<Real> axes_of(const local_vol_grid& g)
{
  return {0,
          g.times,
          g.points,
          static_cast<Real>(1.0 / g.time_step),
          static_cast<Real>(g.x0),
          static_cast<Real>(1.0 / g.x_step)};
}

// Asset a's step from t0 to t1: a local-vol asset's vol is read at t0 (its time rows and weight
// on the grid's time axis, which every grid of the asset shares; local_vol_time_of in double), a
// GBM asset's is its exact vol over the step, sqrt(dw / dt) (a worst-of's GBM assets).
template <typename Real>
basic_local_vol_step<Real> make_local_vol_step(const asset& a, const market_data& market, double t0, double t1,
                                               double df_T, bool fixing);

template <typename Real>
basic_local_vol_job<Real> make_local_vol_job(const trade& t, const asset& a, const market_data& market,
                                             const engine_options& opt);

}  // namespace mcprice::detail
