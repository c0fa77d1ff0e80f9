#pragma once
// Worst-of autocallables with a local-vol asset among their underlyings (GBM ones may sit
// beside it), in float or double paths: each trade's local-vol step
// rows in one table, its assets' grid axes in another, the grids read from the market's table (market/market_surfaces.hpp), and the GBM
// worst-of's initial levels, spots and correlation factors. Greeks (up to
// max_basket_greek_assets assets): scenario walks on the price's normals, each reading its
// sticky-strike grids (local_vol_worst_of_greeks.hpp), in the baskets' channels.
#include "backends/family_run.hpp"
#include "families/channel_greeks.hpp"
#include "families/family_batch.hpp"
#include "families/trade_route.hpp"
#include "families/worst_of_layout.hpp"
#include "mcprice/kernels/launch/local_vol_worst_of.hpp"
#include "mcprice/kernels/launch/worst_of.hpp"
#include "products/local_vol_setup.hpp"
#include "products/worst_of_setup.hpp"
#include "statistics/greek_statistics.hpp"

#include <cstdint>
#include <optional>
#include <type_traits>
#include <vector>

namespace mcprice::detail {

template <typename Real>
struct basic_local_vol_worst_of_family {
  using record = basic_local_vol_worst_of_trade<Real>;
  using job = basic_local_vol_worst_of_job<Real>;
  using result_input = no_result_input;
  using greek_sums = void;
  using real = Real;
  using device_ref = kernels::family_ref<record, basic_local_vol_worst_of_tables<Real>>;
  static constexpr int normals_per_sample = path_normals_per_sample;
  static constexpr bool boxed_job = true;  // its vectors would widen every job slot of a chunk
  // Bridged normals a step of a Sobol stream: one an asset, as the GBM worst-of.
  static constexpr int sobol_factors = worst_of_sobol_assets;

  struct tables {
    std::vector<basic_local_vol_step<Real>> steps;
    std::vector<basic_local_vol_axes<Real>> grids;
    vol_pair_table<Real> surface;
    std::vector<Real> log_initials;
    std::vector<Real> spots;
    std::vector<Real> factors;

    template <typename At>
    [[nodiscard]] basic_local_vol_worst_of_tables<Real> place(At&& at) const
    {
      return {at(steps), at(grids), at(surface), at(log_initials), at(spots), at(factors)};
    }
  };

  static bool takes(const trade_route& r)
  {
    return r.in_double == std::is_same_v<Real, double> && r.local_vol_worst_of;
  }
  static job make_job(const trade_route& r, const market_data& market, const engine_options& options)
  {
    return make_local_vol_worst_of_job<Real>(r.t, market, options);
  }
  static void append_tables(tables& t, job& j)
  {
    j.kernel.first_step = static_cast<std::int32_t>(t.steps.size());
    j.kernel.first_asset = static_cast<std::int32_t>(t.log_initials.size());
    j.kernel.first_factor = static_cast<std::int32_t>(t.factors.size());
    append_worst_of_grids(t, j);
    t.steps.insert(t.steps.end(), j.steps.begin(), j.steps.end());
    t.log_initials.insert(t.log_initials.end(), j.log_initials.begin(), j.log_initials.end());
    t.spots.insert(t.spots.end(), j.spots.begin(), j.spots.end());
    t.factors.insert(t.factors.end(), j.factor.begin(), j.factor.end());
  }

  template <typename Rng>
  static moments price_lane(const record& t, const basic_local_vol_worst_of_tables<Real>& tab, std::int64_t block,
                            int lane)
  {
    return local_vol_worst_of_lane<Rng>(t, tab, block, lane);
  }
  static void launch(const device_ref& f, kernels::block_range b, moments* partials, kernels::launch_target at)
  {
    kernels::launch_local_vol_worst_of_blocks(f, b, partials, at);
  }
  static void launch_two_phase(const device_ref& f, kernels::block_range b, const kernels::two_phase_scratch<Real>& s,
                               moments* partials, kernels::launch_target at)
  {
    kernels::launch_local_vol_worst_of_two_phase(f, b, s, partials, at);
  }
  static two_phase_layout two_phase(const std::vector<record>& records) { return worst_of_two_phase_layout(records); }
};

// Greeks by scenario walks in either precision; the GPU's Greek kernel (the float family's
// launch_greeks) is float: under --precision double the host prices them.
template <typename Real>
struct basic_local_vol_worst_of_greek_family : basic_local_vol_worst_of_family<Real>, channel_greeks {
  using greek_sums = basket_greek_moments;
  using typename basic_local_vol_worst_of_family<Real>::record;

  template <typename Rng>
  static priced_basket_greeks greek_lane(const record& t, const basic_local_vol_worst_of_tables<Real>& tab,
                                         std::int64_t block, int lane)
  {
    return local_vol_worst_of_greek_lane<Rng>(t, tab, block, lane);
  }
};

struct local_vol_worst_of_family : basic_local_vol_worst_of_greek_family<float> {
  static void launch_greeks(const device_ref& f, kernels::block_range b, moments* partials, greek_sums* greek_partials,
                            kernels::launch_target at)
  {
    kernels::launch_local_vol_worst_of_greek_blocks(f, b, partials, greek_partials, at);
  }
};

// --precision double: the GPU's double kernels price it (fused and two-phase), the host its Greeks
// (the GPU's Greek kernel is float).
struct double_local_vol_worst_of_family : basic_local_vol_worst_of_greek_family<double> {};

}  // namespace mcprice::detail
