#include "mcprice/market.hpp"

#include "market/local_vol_surface.hpp"
#include "market/market_surfaces.hpp"

#include <utility>

namespace mcprice {

market_data::market_data(rate_curve discount, std::vector<asset> assets, std::vector<double> correlation,
                         std::string source)
    : discount_(std::move(discount)),
      assets_(std::move(assets)),
      correlation_(std::move(correlation)),
      source_(std::move(source))
{
  for (std::size_t i = 0; i < assets_.size(); ++i) index_.emplace(assets_[i].name, i);
  // Local vol once per market: every trade on the asset reads the same grid.
  for (asset& a : assets_) {
    if (a.model == model_kind::local_vol && a.local_vol.vols.empty() && !a.surface.expiries.empty()) {
      auto const forward = [&](double t) { return log_forward(a, t); };
      a.local_vol = detail::make_local_vol_grid(a.surface, a.spot, forward);
      a.local_vol_bumped = detail::make_bumped_local_vol_grids(a.surface, a.spot, forward);
    }
  }
  detail::place_local_vol_grids(assets_);
}

std::optional<std::size_t> market_data::find(const std::string& name) const
{
  auto const it = index_.find(name);
  if (it == index_.end()) return std::nullopt;
  return it->second;
}

double market_data::log_forward(const asset& a, double t) const
{
  return (discount_.zero_rate(t) - a.dividend.zero_rate(t)) * t;
}

double market_data::correlation(std::size_t i, std::size_t j) const
{
  if (correlation_.empty()) return i == j ? 1.0 : 0.0;
  return correlation_[i * assets_.size() + j];
}

}  // namespace mcprice
