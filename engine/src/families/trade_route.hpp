#pragma once
// What decides a validated trade's family: its product and exercise, its first underlying's
// model, and the run's precision and Greeks. Each family of the registry says which routes it
// takes (family_list.hpp); no two take the same.
#include "mcprice/market.hpp"
#include "mcprice/portfolio.hpp"
#include "mcprice/settings.hpp"
#include "products/trade_validation.hpp"

namespace mcprice::detail {

struct trade_route {
  const trade& t;
  const asset& first;  // the trade's first underlying
  bool in_double;      // --precision double
  bool greeks;
  // A multi-asset trade with a Heston, local-vol or jump underlying (any of them): the
  // early-exercise walk prices it.
  bool walked_assets{false};
  // A worst-of autocallable with a local-vol underlying beside GBM ones only: the local-vol
  // worst-of prices it.
  bool local_vol_worst_of{false};
  // A worst-of autocallable with a Heston or jump underlying (local-vol and GBM ones may sit
  // beside it): the Heston worst-of prices it.
  bool heston_worst_of{false};
  // Such a worst-of with a local-vol underlying too: the mixed worst-of's kernels (the Heston
  // worst-of's with the local-vol step).
  bool mixed_worst_of{false};

  [[nodiscard]] bool european_exercise() const noexcept { return t.exercise == exercise_style::european; }
  // An autocallable on several underlyings (worst-of): it has a family of its own.
  [[nodiscard]] bool worst_of_autocallable() const noexcept
  {
    return t.product == product_kind::autocallable && t.underlyings.size() > 1;
  }
  // Baskets, best-of, worst-of and spreads (a worst-of autocallable is not one of them).
  [[nodiscard]] bool multi_asset() const noexcept
  {
    return detail::multi_asset(t.product) || worst_of_autocallable();
  }
  [[nodiscard]] bool on_heston() const noexcept { return first.model == model_kind::heston; }
  // Merton / Bates jumps on the first underlying (an intensity of 0 is none).
  [[nodiscard]] bool jumps() const noexcept { return first.jumps && first.jumps->intensity > 0.0; }
  // Vanillas and digitals: one observation at expiry.
  [[nodiscard]] bool terminal() const noexcept
  {
    return t.product == product_kind::vanilla || t.product == product_kind::digital;
  }
  // A European-exercise product on one GBM asset, in the path precision the family prices.
  [[nodiscard]] bool single_gbm(bool double_family) const noexcept
  {
    return in_double == double_family && european_exercise() && !multi_asset() && first.model == model_kind::gbm;
  }
};

}  // namespace mcprice::detail
