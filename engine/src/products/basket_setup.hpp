#pragma once
// From a validated basket / best_of / worst_of / spread trade on GBM assets to its kernel record,
// its per-asset parameters and the factor of its assets' correlation matrix.
#include "mcprice/kernels/models/basket_gbm.hpp"
#include "mcprice/market.hpp"
#include "mcprice/portfolio.hpp"
#include "mcprice/settings.hpp"

#include <vector>

namespace mcprice::detail {

// Real: the path precision of the records (float, or double for --precision double).
template <typename Real>
struct basic_basket_job {
  basic_basket_gbm_trade<Real> kernel;  // first_block, first_factor and first_asset are set by the batcher
  std::vector<basic_basket_asset<Real>> assets;
  std::vector<Real> factor;  // assets x assets, row-major: A with A A^T = the correlation matrix
                             // (with Greeks, then the factors of the matrix with every
                             // correlation +h and -h)
  double scale;
  std::int64_t paths;
};
using basket_job = basic_basket_job<float>;
using basket_job_f64 = basic_basket_job<double>;

template <typename Real>
basic_basket_job<Real> make_basket_job(const trade& t, const market_data& market, const engine_options& opt);

// Weight of underlying i of n: the trade's weights, else 1/n for a basket and 1 otherwise.
double basket_weight(const trade& t, std::size_t i, std::size_t n);

// A with A A^T = the correlation matrix of the given market assets, row-major; with_bumps: then
// the factors of the matrix with every pairwise correlation +h and -h (correlation vega's).
template <typename Real = float>
std::vector<Real> correlation_factor(const market_data& market, const std::vector<std::size_t>& assets,
                                     bool with_bumps = false);

}  // namespace mcprice::detail
