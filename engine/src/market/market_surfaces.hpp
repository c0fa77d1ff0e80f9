#pragma once
// The market's local-vol grids as kernels read them: each node's value and the slope to the next
// in x (0 at a row's last point), every grid of the market once, in asset order (an asset's own
// grid, then its sticky-strike grids). An engine's backend holds them for its lifetime: the CPU
// backend in host memory, the GPU backend in the market buffers (GPUDirect-safe, uploaded with
// the market); trades point into them by their grids' `first_pair`, so no request uploads a grid.
#include "mcprice/kernels/models/local_vol_path.hpp"
#include "mcprice/market.hpp"

#include <vector>

namespace mcprice::detail {

// Sets every local-vol grid's first_pair: its place in the table, in the order above.
void place_local_vol_grids(std::vector<asset>& assets);

struct market_surfaces {
  std::vector<basic_vol_pair<float>> f32;
  std::vector<basic_vol_pair<double>> f64;

  market_surfaces() = default;
  explicit market_surfaces(const market_data& market);

  template <typename Real>
  [[nodiscard]] const std::vector<basic_vol_pair<Real>>& of() const noexcept
  {
    if constexpr (sizeof(Real) == sizeof(float)) return f32;
    else return f64;
  }
};

}  // namespace mcprice::detail
