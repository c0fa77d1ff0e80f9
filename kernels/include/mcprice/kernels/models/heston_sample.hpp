#pragma once
// A Heston trade's sample, whatever its product: Europeans by their variance path alone
// (heston_conditional.hpp), the path products by full QE paths (heston_path.hpp). Every route
// and backend prices through these, so a trade's numbers do not depend on which one ran it.
#include "mcprice/kernels/models/heston_conditional.hpp"

namespace mcprice {

// EuropeansOnly: the trade is known to be a European, so no dispatch over the path products
// (the Europeans kernel; a kernel's registers are those of its largest variant).
template <typename NormalStream, bool Antithetic, bool EuropeansOnly, typename Real>
MCPRICE_HD MCPRICE_INLINE Real heston_sample_of(const basic_heston_trade<Real>& h, const basic_heston_step<Real>* grid,
                                                std::uint64_t group)
{
  if constexpr (EuropeansOnly) {
    return heston_european_sample<NormalStream, Antithetic>(h, grid, group);
  } else {
    return with_path_product(h.product, [&](auto product) {
      constexpr path_product p = decltype(product)::value;
      if constexpr (p == path_product::european)
        return heston_european_sample<NormalStream, Antithetic>(h, grid, group);
      else return heston_sample<NormalStream, p, Antithetic>(h, grid, group);
    });
  }
}

template <typename NormalStream, bool EuropeansOnly = false, typename Real>
MCPRICE_HD MCPRICE_INLINE moments heston_lane(const basic_heston_trade<Real>& h, const basic_heston_step<Real>* grid,
                                              std::int64_t block, int lane)
{
  return own_subsequence_lane(h.samples, block, lane, [&](std::uint64_t subsequence) {
    return h.antithetic ? heston_sample_of<NormalStream, true, EuropeansOnly>(h, grid, subsequence)
                        : heston_sample_of<NormalStream, false, EuropeansOnly>(h, grid, subsequence);
  });
}

}  // namespace mcprice
