#include "mcprice/market.hpp"

#include <utility>

namespace mcprice {

market_data::market_data(rate_curve discount, std::vector<asset> assets,
                         std::vector<double> correlation, std::string source)
    : discount_(std::move(discount)), assets_(std::move(assets)),
      correlation_(std::move(correlation)), source_(std::move(source))
{
}

std::optional<std::size_t> market_data::find(const std::string& name) const
{
  for (std::size_t i = 0; i < assets_.size(); ++i) {
    if (assets_[i].name == name) return i;
  }
  return std::nullopt;
}

double market_data::correlation(std::size_t i, std::size_t j) const
{
  return correlation_[i * assets_.size() + j];
}

}  // namespace mcprice
