#pragma once
// Asians, barriers, touches and lookbacks on one GBM asset: each trade's steps (exact under the
// term structures) in one grid. Three families share these records: the float paths, whose
// Greeks are pathwise (so with Greeks they take Asians alone); the float paths whose Greeks are
// scenario lanes (with Greeks: barriers, touches and lookbacks); and --precision double, where
// vanillas and digitals are one-step paths too and there are no Greeks.
#include "backends/family_run.hpp"
#include "families/family_batch.hpp"
#include "families/trade_route.hpp"
#include "mcprice/kernels/launch/paths.hpp"
#include "products/path_setup.hpp"
#include "statistics/greek_statistics.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <type_traits>
#include <vector>

namespace mcprice::detail {

// What the three path families share; Real is the path precision.
template <typename Real>
struct basic_gbm_path_family {
  using record = basic_path_gbm_trade<Real>;
  using job = basic_path_job<Real>;
  using result_input = no_result_input;
  using greek_sums = void;
  using real = Real;
  using device_ref = kernels::path_ref<Real>;
  static constexpr int normals_per_sample = path_normals_per_sample;
  // Unboxed, a double job would widen every float job's slot in a chunk's job list by a third.
  static constexpr bool boxed_job = std::is_same_v<Real, double>;
  // Bridged normals a step of a Sobol stream (a normal a step, a continuous lookback's second; rng/sobol_stream.hpp).
  static constexpr int sobol_factors = 2;

  struct tables {
    std::vector<basic_path_step<Real>> grid;
    std::vector<basic_path_greek_step<Real>> greek_grid;  // with Greeks: parallel to grid

    template <typename At>
    [[nodiscard]] kernels::path_tables<Real> place(At&& at) const
    {
      return {at(grid), at(greek_grid)};
    }
  };

  static job make_job(const trade_route& r, const market_data& market, const engine_options& options)
  {
    return make_path_job<Real>(r.t, r.first, market, options);
  }
  static void append_tables(tables& t, job& p)
  {
    p.kernel.first_step = static_cast<std::int32_t>(t.grid.size());
    t.grid.insert(t.grid.end(), p.steps.begin(), p.steps.end());
    t.greek_grid.insert(t.greek_grid.end(), p.greek_steps.begin(), p.greek_steps.end());
  }

  template <typename Rng>
  static moments price_lane(const record& t, const kernels::path_tables<Real>& tab, std::int64_t block, int lane)
  {
    return path_lane<Rng>(t, tab.grid, block, lane);
  }

  static void launch(const device_ref& f, kernels::block_range b, moments* partials, kernels::launch_target at)
  {
    kernels::launch_path_blocks(f, b, partials, at);
  }
  static two_phase_layout two_phase(const std::vector<record>& records)
  {
    int rows = 0;
    for (auto const& t : records) rows = std::max(rows, kernels::path_rows_per_sample(t));
    return {kernels::path_samples_per_block * rows, kernels::path_samples_per_block, rows};
  }
  static void launch_two_phase(const device_ref& f, kernels::block_range b, const kernels::two_phase_scratch<Real>& s,
                               moments* partials, kernels::launch_target at)
  {
    kernels::launch_path_two_phase(f, b, s, partials, at);
  }
};

// Float paths. Without Greeks, every path product takes the first family, and so do vanillas
// and digitals with jumps (one-step paths). With Greeks, Asians without jumps take it (pathwise
// Greeks); the others take the second (ScenarioLanes: central differences on scenario lanes that
// share the price's normals).
template <bool ScenarioLanes>
struct float_path_family : basic_gbm_path_family<float> {
  using greek_sums = path_greek_moments;

  static bool takes(const trade_route& r)
  {
    bool const pathwise = r.t.product == product_kind::asian && !r.jumps();
    bool const scenario = r.greeks && !pathwise;
    return r.single_gbm(false) && (!r.terminal() || r.jumps()) && scenario == ScenarioLanes;
  }
  static std::optional<trade_greeks> greeks_of(const family_batch<float_path_family>& b, std::size_t k,
                                               const trade_outcome& o)
  {
    return make_path_greeks(o.greek_sums().path_greeks, b.samples[k], b.scales[k],
                            ScenarioLanes ? greek_method::central_bumps : greek_method::pathwise_bumped_gamma);
  }
  template <typename Rng>
  static priced_path_greeks greek_lane(const record& t, const kernels::path_tables<float>& tab, std::int64_t block,
                                       int lane)
  {
    if constexpr (ScenarioLanes) return scenario_greek_lane<Rng>(t, tab.grid, tab.greek_grid, block, lane);
    else return asian_greek_lane<Rng>(t, tab.grid, tab.greek_grid, block, lane);
  }
  static void launch_greeks(const device_ref& f, kernels::block_range b, moments* partials, greek_sums* greek_partials,
                            kernels::launch_target at)
  {
    if constexpr (ScenarioLanes) kernels::launch_scenario_greek_blocks(f, b, partials, greek_partials, at);
    else kernels::launch_asian_greek_blocks(f, b, partials, greek_partials, at);
  }
};
using gbm_path_family = float_path_family<false>;
using scenario_path_family = float_path_family<true>;

// --precision double: every single-asset GBM product, vanillas and digitals as one-step paths.
// Greeks on the host under either backend (the GPU's Greek kernels are float): Asians without
// jumps pathwise, every other product by scenario lanes, as in float.
struct double_path_family : basic_gbm_path_family<double> {
  using greek_sums = path_greek_moments;

  static bool takes(const trade_route& r) { return r.single_gbm(true); }
  static bool pathwise(const record& t) { return t.product == path_product::asian && !(t.jumps.intensity > 0.0); }

  template <typename Rng>
  static priced_path_greeks greek_lane(const record& t, const kernels::path_tables<double>& tab, std::int64_t block,
                                       int lane)
  {
    if (pathwise(t)) return asian_greek_lane<Rng>(t, tab.grid, tab.greek_grid, block, lane);
    return scenario_greek_lane<Rng>(t, tab.grid, tab.greek_grid, block, lane);
  }
  static std::optional<trade_greeks> greeks_of(const family_batch<double_path_family>& b, std::size_t k,
                                               const trade_outcome& o)
  {
    return make_path_greeks(o.greek_sums().path_greeks, b.samples[k], b.scales[k],
                            pathwise(b.records[k]) ? greek_method::pathwise_bumped_gamma : greek_method::central_bumps);
  }
};

}  // namespace mcprice::detail
