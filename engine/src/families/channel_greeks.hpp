#pragma once
// The Greeks of families that sum them in the baskets' channels (basket_greek_moments): baskets
// and the worst-of autocallables of every model.
#include "backends/family_run.hpp"
#include "statistics/greek_statistics.hpp"

#include <cstddef>
#include <optional>

namespace mcprice::detail {

struct channel_greeks {
  // Trade k's Greeks from its outcome; a trade without channels of its own (more assets than the
  // channels hold, or a local-vol asset without sticky-strike grids) has none.
  template <typename Batch>
  static std::optional<trade_greeks> greeks_of(const Batch& b, std::size_t k, const trade_outcome& o)
  {
    if (!b.records[k].greeks) return std::nullopt;
    return make_basket_greeks(o.greek_sums().basket_greeks, b.records[k].assets, b.samples[k], b.scales[k]);
  }
};

}  // namespace mcprice::detail
