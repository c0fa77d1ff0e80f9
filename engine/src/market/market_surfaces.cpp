#include "market/market_surfaces.hpp"

#include <limits>
#include <stdexcept>
#include <string>

namespace mcprice::detail {
namespace {

bool has_grid(const asset& a) { return a.model == model_kind::local_vol && !a.local_vol.vols.empty(); }

// f(grid) for every grid of the market, in table order.
template <typename Assets, typename F>
void for_each_grid(Assets& assets, F&& f)
{
  for (auto& a : assets) {
    if (!has_grid(a)) continue;
    f(a.local_vol);
    for (auto& g : a.local_vol_bumped) f(g);
  }
}

template <typename Real>
void append_pairs(const local_vol_grid& g, std::vector<basic_vol_pair<Real>>& out)
{
  for (int i = 0; i < g.times; ++i) {
    const double* row = g.vols.data() + static_cast<std::size_t>(i) * g.points;
    for (int j = 0; j < g.points; ++j) {
      double const slope = j + 1 < g.points ? row[j + 1] - row[j] : 0.0;
      out.push_back({static_cast<Real>(row[j]), static_cast<Real>(slope)});
    }
  }
}

}  // namespace

void place_local_vol_grids(std::vector<asset>& assets)
{
  std::int64_t next = 0;
  for_each_grid(assets, [&](local_vol_grid& g) {
    if (next > std::numeric_limits<std::int32_t>::max()) {
      throw std::length_error("the market's local-vol grids hold more than 2^31 points (" + std::to_string(next) +
                              " before this grid)");
    }
    g.first_pair = static_cast<std::int32_t>(next);
    next += static_cast<std::int64_t>(g.times) * g.points;
  });
}

market_surfaces::market_surfaces(const market_data& market)
{
  for_each_grid(market.assets(), [&](const local_vol_grid& g) {
    append_pairs(g, f32);
    append_pairs(g, f64);
  });
}

}  // namespace mcprice::detail
