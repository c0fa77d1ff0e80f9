#pragma once
// Worst-of autocallables on several correlated GBM assets: each trade's step rows in one grid,
// beside its assets' initial levels and spots and its correlation factor. Greeks (up to
// max_basket_greek_assets assets): scenario walks on the price's normals, in the baskets'
// channels (worst_of_greeks.hpp). --precision double has a family of its own (its Greeks on the
// host).
#include "backends/family_run.hpp"
#include "families/channel_greeks.hpp"
#include "families/family_batch.hpp"
#include "families/trade_route.hpp"
#include "families/worst_of_layout.hpp"
#include "mcprice/kernels/launch/worst_of.hpp"
#include "products/worst_of_setup.hpp"
#include "statistics/greek_statistics.hpp"

#include <cstdint>
#include <optional>
#include <type_traits>
#include <vector>

namespace mcprice::detail {

template <typename Real>
struct basic_worst_of_family {
  using record = basic_worst_of_trade<Real>;
  using job = basic_worst_of_job<Real>;
  using result_input = no_result_input;
  using greek_sums = void;
  using real = Real;
  using device_ref = kernels::worst_of_ref<Real>;
  static constexpr int normals_per_sample = path_normals_per_sample;
  static constexpr bool boxed_job = true;  // its vectors would widen every job slot of a chunk
  // Bridged normals a step of a Sobol stream: one an asset (make_worst_of_job refuses more).
  static constexpr int sobol_factors = worst_of_sobol_assets;

  struct tables {
    std::vector<basic_path_step<Real>> grid;
    std::vector<basic_path_greek_step<Real>> greek_grid;  // with Greeks: parallel to grid
    std::vector<Real> log_initials;
    std::vector<Real> spots;
    std::vector<Real> factors;

    template <typename At>
    [[nodiscard]] kernels::worst_of_tables<Real> place(At&& at) const
    {
      return {at(grid), at(greek_grid), at(log_initials), at(spots), at(factors)};
    }
  };

  static bool takes(const trade_route& r)
  {
    return r.in_double == std::is_same_v<Real, double> && r.worst_of_autocallable() && !r.local_vol_worst_of &&
           !r.heston_worst_of;
  }
  static job make_job(const trade_route& r, const market_data& market, const engine_options& options)
  {
    return make_worst_of_job<Real>(r.t, market, options);
  }
  static void append_tables(tables& t, job& j)
  {
    j.kernel.first_step = static_cast<std::int32_t>(t.grid.size());
    j.kernel.first_asset = static_cast<std::int32_t>(t.log_initials.size());
    j.kernel.first_factor = static_cast<std::int32_t>(t.factors.size());
    // The Greek grid stays parallel to the grid (zero rows for trades without Greeks).
    if (!j.greek_steps.empty() || !t.greek_grid.empty()) {
      t.greek_grid.resize(t.grid.size());
      t.greek_grid.insert(t.greek_grid.end(), j.greek_steps.begin(), j.greek_steps.end());
      t.greek_grid.resize(t.grid.size() + j.steps.size());
    }
    t.grid.insert(t.grid.end(), j.steps.begin(), j.steps.end());
    t.log_initials.insert(t.log_initials.end(), j.log_initials.begin(), j.log_initials.end());
    t.spots.insert(t.spots.end(), j.spots.begin(), j.spots.end());
    t.factors.insert(t.factors.end(), j.factor.begin(), j.factor.end());
  }

  template <typename Rng>
  static moments price_lane(const record& t, const kernels::worst_of_tables<Real>& tab, std::int64_t block, int lane)
  {
    return worst_of_lane<Rng>(t, tab.grid, tab.log_initials, tab.factors, block, lane);
  }

  static void launch(const device_ref& f, kernels::block_range b, moments* partials, kernels::launch_target at)
  {
    kernels::launch_worst_of_blocks(f, b, partials, at);
  }
  static two_phase_layout two_phase(const std::vector<record>& records) { return worst_of_two_phase_layout(records); }
  static void launch_two_phase(const device_ref& f, kernels::block_range b, const kernels::two_phase_scratch<Real>& s,
                               moments* partials, kernels::launch_target at)
  {
    kernels::launch_worst_of_two_phase(f, b, s, partials, at);
  }
};

// Greeks by scenario walks in either precision; the GPU's Greek kernel (the float family's
// launch_greeks) is float: under --precision double the GPU backend hands Greeks to the host.
template <typename Real>
struct basic_worst_of_greek_family : basic_worst_of_family<Real>, channel_greeks {
  using greek_sums = basket_greek_moments;
  using typename basic_worst_of_family<Real>::record;

  template <typename Rng>
  static priced_basket_greeks greek_lane(const record& t, const kernels::worst_of_tables<Real>& tab, std::int64_t block,
                                         int lane)
  {
    return worst_of_greek_lane<Rng>(t, tab.grid, tab.greek_grid, tab.log_initials, tab.spots, tab.factors, block, lane);
  }
};

struct worst_of_family : basic_worst_of_greek_family<float> {
  static void launch_greeks(const device_ref& f, kernels::block_range b, moments* partials, greek_sums* greek_partials,
                            kernels::launch_target at)
  {
    kernels::launch_worst_of_greek_blocks(f, b, partials, greek_partials, at);
  }
};
struct double_worst_of_family : basic_worst_of_greek_family<double> {};

}  // namespace mcprice::detail
