#pragma once
// Baskets, best-of, worst-of and spreads on correlated GBM assets: each trade's per-asset
// parameters and correlation factors in their own tables. Greeks: per-asset deltas, gammas and
// vegas, cross gammas and correlation vega by scenario channels (in double on the host).
#include "backends/family_run.hpp"
#include "families/channel_greeks.hpp"
#include "families/family_batch.hpp"
#include "families/trade_route.hpp"
#include "mcprice/kernels/launch/baskets.hpp"
#include "products/basket_setup.hpp"
#include "statistics/greek_statistics.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <type_traits>
#include <vector>

namespace mcprice::detail {

template <typename Real>
struct basic_basket_family {
  using record = basic_basket_gbm_trade<Real>;
  using job = basic_basket_job<Real>;
  using result_input = no_result_input;
  using greek_sums = void;
  using real = Real;
  using device_ref = kernels::basket_ref<Real>;
  static constexpr int normals_per_sample = basket_normals_per_sample;
  static constexpr bool boxed_job = std::is_same_v<Real, double>;
  // Bridged normals a step of a Sobol stream (one step: the assets' normals are the dimensions; rng/sobol_stream.hpp).
  static constexpr int sobol_factors = 0;

  struct tables {
    std::vector<basic_basket_asset<Real>> assets;
    std::vector<Real> factors;

    template <typename At>
    [[nodiscard]] kernels::basket_tables<Real> place(At&& at) const
    {
      return {at(assets), at(factors)};
    }
  };

  // Multi-asset trades on GBM assets (on Heston assets they price by least squares).
  static bool takes(const trade_route& r)
  {
    return r.in_double == std::is_same_v<Real, double> && r.european_exercise() && r.multi_asset() &&
           !r.walked_assets && !r.worst_of_autocallable();
  }
  static job make_job(const trade_route& r, const market_data& market, const engine_options& options)
  {
    return make_basket_job<Real>(r.t, market, options);
  }
  static void append_tables(tables& t, job& b)
  {
    b.kernel.first_asset = static_cast<std::int32_t>(t.assets.size());
    b.kernel.first_factor = static_cast<std::int32_t>(t.factors.size());
    t.assets.insert(t.assets.end(), b.assets.begin(), b.assets.end());
    t.factors.insert(t.factors.end(), b.factor.begin(), b.factor.end());
  }

  template <typename Rng>
  static moments price_lane(const record& t, const kernels::basket_tables<Real>& tab, std::int64_t block, int lane)
  {
    return basket_lane<Rng>(t, tab.assets, tab.factors, block, lane);
  }

  static void launch(const device_ref& f, kernels::block_range b, moments* partials, kernels::launch_target at)
  {
    kernels::launch_basket_blocks(f, b, partials, at);
  }
  static two_phase_layout two_phase(const std::vector<record>& records)
  {
    int rows = 0;
    for (auto const& t : records) rows = std::max(rows, kernels::basket_rows_per_sample(t));
    return {kernels::path_samples_per_block * rows, kernels::path_samples_per_block, rows};
  }
  static void launch_two_phase(const device_ref& f, kernels::block_range b, const kernels::two_phase_scratch<Real>& s,
                               moments* partials, kernels::launch_target at)
  {
    kernels::launch_basket_two_phase(f, b, s, partials, at);
  }
};

// Greeks by scenario channels in either precision; the GPU's Greek kernel (the float family's
// launch_greeks) is float: under --precision double the GPU backend hands Greeks to the host.
template <typename Real>
struct basic_basket_greek_family : basic_basket_family<Real>, channel_greeks {
  using greek_sums = basket_greek_moments;
  using typename basic_basket_family<Real>::record;

  template <typename Rng>
  static priced_basket_greeks greek_lane(const record& t, const kernels::basket_tables<Real>& tab, std::int64_t block,
                                         int lane)
  {
    return basket_greek_lane<Rng>(t, tab.assets, tab.factors, block, lane);
  }
};

struct basket_family : basic_basket_greek_family<float> {
  static void launch_greeks(const device_ref& f, kernels::block_range b, moments* partials, greek_sums* greek_partials,
                            kernels::launch_target at)
  {
    kernels::launch_basket_greek_blocks(f, b, partials, greek_partials, at);
  }
};
struct double_basket_family : basic_basket_greek_family<double> {};

}  // namespace mcprice::detail
