#pragma once
// Worst-of autocallables with a Heston or jump asset among their underlyings (GBM and local-vol
// ones may sit beside it), in float or double paths: each trade's
// Heston step rows in one table, its assets' v0, vol of vol and jump law, the GBM worst-of's
// initial levels, spots and correlation factors, and with a local-vol asset its local-vol rows and grids (as the local-vol worst-of's). Two
// families of one definition: the mixed worst-ofs (a local-vol asset among them) take kernels
// with the local-vol step, the others kernels without it (kernels/launch/heston_worst_of.hpp).
// Greeks (up to max_basket_greek_assets assets): scenario walks on the price's draws
// (heston_worst_of_greeks.hpp), in the baskets' channels.
#include "backends/family_run.hpp"
#include "families/channel_greeks.hpp"
#include "families/family_batch.hpp"
#include "families/trade_route.hpp"
#include "families/worst_of_layout.hpp"
#include "mcprice/kernels/launch/heston_worst_of.hpp"
#include "mcprice/kernels/launch/worst_of.hpp"
#include "products/local_vol_setup.hpp"
#include "products/worst_of_setup.hpp"
#include "statistics/greek_statistics.hpp"

#include <cstdint>
#include <optional>
#include <vector>

namespace mcprice::detail {

// Real: the path precision; LocalVol: the walk with the local-vol step (a trade without local-vol
// assets prices with the same bits either way).
template <typename Real, bool LocalVol>
struct basic_heston_worst_of_family {
  using record = basic_heston_worst_of_trade<Real>;
  using job = basic_heston_worst_of_job<Real>;
  using result_input = no_result_input;
  using greek_sums = void;
  using real = Real;
  using device_ref = kernels::family_ref<record, basic_heston_worst_of_tables<Real>>;
  static constexpr int normals_per_sample = path_normals_per_sample;
  static constexpr bool boxed_job = true;  // its vectors would widen every job slot of a chunk
  // Bridged normals a step of a Sobol stream: two an asset (make_heston_worst_of_job refuses more).
  static constexpr int sobol_factors = worst_of_sobol_assets;

  struct tables {
    std::vector<basic_heston_step<Real>> steps;
    std::vector<basic_heston_worst_of_asset<Real>> assets;
    std::vector<Real> log_initials;
    std::vector<Real> factors;
    std::vector<Real> spots;
    std::vector<Real> jump_counts;                      // parallel to steps up to the last jump trade's rows
    std::vector<basic_heston_worst_of_greek_row<Real>>
        greek_rows;  // parallel to steps up to the last Greek trade's rows
    // Parallel to steps up to the last local-vol trade's rows; the grids' axes and values.
    std::vector<basic_local_vol_step<Real>> local_vol_steps;
    std::vector<basic_local_vol_axes<Real>> grids;
    vol_pair_table<Real> surface;

    template <typename At>
    [[nodiscard]] basic_heston_worst_of_tables<Real> place(At&& at) const
    {
      return {at(steps),
              at(assets),
              at(log_initials),
              at(spots),
              at(factors),
              jump_counts.empty() ? nullptr : at(jump_counts),
              greek_rows.empty() ? nullptr : at(greek_rows),
              local_vol_steps.empty() ? nullptr : at(local_vol_steps),
              grids.empty() ? nullptr : at(grids),
              grids.empty() ? nullptr : at(surface)};
    }
  };

  static job make_job(const trade_route& r, const market_data& market, const engine_options& options)
  {
    return make_heston_worst_of_job<Real>(r.t, market, options);
  }
  static void append_tables(tables& t, job& j)
  {
    j.kernel.first_step = static_cast<std::int32_t>(t.steps.size());
    j.kernel.first_asset = static_cast<std::int32_t>(t.log_initials.size());
    j.kernel.first_factor = static_cast<std::int32_t>(t.factors.size());
    append_parallel_rows(t.jump_counts, t.steps.size(), j.jump_counts);
    append_parallel_rows(t.greek_rows, t.steps.size(), j.greek_rows);
    append_parallel_rows(t.local_vol_steps, t.steps.size(), j.local_vol_steps);
    append_worst_of_grids(t, j);
    t.steps.insert(t.steps.end(), j.steps.begin(), j.steps.end());
    t.assets.insert(t.assets.end(), j.assets.begin(), j.assets.end());
    t.log_initials.insert(t.log_initials.end(), j.log_initials.begin(), j.log_initials.end());
    t.spots.insert(t.spots.end(), j.spots.begin(), j.spots.end());
    t.factors.insert(t.factors.end(), j.factor.begin(), j.factor.end());
  }

  template <typename Rng>
  static moments price_lane(const record& t, const basic_heston_worst_of_tables<Real>& tab, std::int64_t block,
                            int lane)
  {
    return heston_worst_of_lane<Rng, LocalVol>(t, tab, block, lane);
  }
  static two_phase_layout two_phase(const std::vector<record>& records) { return worst_of_two_phase_layout(records); }
};

// Greeks by scenario walks in either precision; the GPU's Greek kernels (the float families'
// launch_greeks) are float: under --precision double the host prices them.
template <typename Real, bool LocalVol>
struct basic_heston_worst_of_greek_family : basic_heston_worst_of_family<Real, LocalVol>, channel_greeks {
  using greek_sums = basket_greek_moments;
  using typename basic_heston_worst_of_family<Real, LocalVol>::record;

  template <typename Rng>
  static priced_basket_greeks greek_lane(const record& t, const basic_heston_worst_of_tables<Real>& tab,
                                         std::int64_t block, int lane)
  {
    return heston_worst_of_greek_lane<Rng, LocalVol>(t, tab, block, lane);
  }
};

// The float families, with the GPU's kernels: the mixed worst-ofs (a local-vol asset among
// them) take kernels with the local-vol step, the others kernels without it.
template <bool LocalVol>
struct float_heston_worst_of_family : basic_heston_worst_of_greek_family<float, LocalVol> {
  using typename basic_heston_worst_of_family<float, LocalVol>::device_ref;
  using typename basic_heston_worst_of_greek_family<float, LocalVol>::greek_sums;

  static bool takes(const trade_route& r) { return !r.in_double && r.heston_worst_of && r.mixed_worst_of == LocalVol; }
  static void launch(const device_ref& f, kernels::block_range b, moments* partials, kernels::launch_target at)
  {
    kernels::launch_heston_worst_of_blocks(f, LocalVol, b, partials, at);
  }
  static void launch_two_phase(const device_ref& f, kernels::block_range b, const kernels::two_phase_scratch<float>& s,
                               moments* partials, kernels::launch_target at)
  {
    kernels::launch_heston_worst_of_two_phase(f, LocalVol, b, s, partials, at);
  }
  static void launch_greeks(const device_ref& f, kernels::block_range b, moments* partials, greek_sums* greek_partials,
                            kernels::launch_target at)
  {
    kernels::launch_heston_worst_of_greek_blocks(f, LocalVol, b, partials, greek_partials, at);
  }
};

using heston_worst_of_family = float_heston_worst_of_family<false>;
using mixed_worst_of_family = float_heston_worst_of_family<true>;

// --precision double: every Heston and jump worst-of (local-vol assets beside them or not) on the
// walk with the local-vol step: the GPU's double kernels price it (fused and two-phase), the host
// its Greeks (the GPU's Greek kernels are float).
struct double_heston_worst_of_family : basic_heston_worst_of_greek_family<double, true> {
  static bool takes(const trade_route& r) { return r.in_double && r.heston_worst_of; }
  static void launch(const device_ref& f, kernels::block_range b, moments* partials, kernels::launch_target at)
  {
    kernels::launch_heston_worst_of_blocks(f, b, partials, at);
  }
  static void launch_two_phase(const device_ref& f, kernels::block_range b, const kernels::two_phase_scratch<double>& s,
                               moments* partials, kernels::launch_target at)
  {
    kernels::launch_heston_worst_of_two_phase(f, b, s, partials, at);
  }
};

}  // namespace mcprice::detail
