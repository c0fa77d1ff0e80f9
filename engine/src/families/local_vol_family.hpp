#pragma once
// Every single-asset product on a local_vol asset (Dupire, log Euler steps): each trade's steps
// in one table; the grids (with Greeks, the sticky-strike ones too) are read from the market's
// table, which the backend holds for the engine's lifetime (market/market_surfaces.hpp).
// Greeks: central differences on scenario lanes. --precision double has a family of its own (its
// Greeks on the host).
#include "backends/family_run.hpp"
#include "families/family_batch.hpp"
#include "families/trade_route.hpp"
#include "mcprice/kernels/launch/local_vol.hpp"
#include "products/local_vol_setup.hpp"
#include "statistics/greek_statistics.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <type_traits>
#include <vector>

namespace mcprice::detail {

template <typename Real>
struct basic_local_vol_family {
  using record = basic_local_vol_trade<Real>;
  using job = basic_local_vol_job<Real>;
  using result_input = no_result_input;
  using greek_sums = void;
  using real = Real;
  using device_ref = kernels::local_vol_ref<Real>;
  static constexpr int normals_per_sample = path_normals_per_sample;
  static constexpr bool boxed_job = std::is_same_v<Real, double>;
  // Bridged normals a step of a Sobol stream (a normal a step, a continuous lookback's second).
  static constexpr int sobol_factors = 2;

  struct tables {
    std::vector<basic_local_vol_step<Real>> steps;
    vol_pair_table<Real> surface;  // the market's grids (no copy)
    bool structured{false};        // some trade is an autocallable or a cliquet (kernels' choice)

    template <typename At>
    [[nodiscard]] kernels::local_vol_tables<Real> place(At&& at) const
    {
      return {at(steps), at(surface), structured};
    }
  };

  static bool takes(const trade_route& r)
  {
    return r.in_double == std::is_same_v<Real, double> && r.european_exercise() && !r.multi_asset() &&
           r.first.model == model_kind::local_vol;
  }
  static job make_job(const trade_route& r, const market_data& market, const engine_options& options)
  {
    return make_local_vol_job<Real>(r.t, r.first, market, options);
  }
  static void append_tables(tables& t, job& j)
  {
    j.kernel.first_step = static_cast<std::int32_t>(t.steps.size());
    t.steps.insert(t.steps.end(), j.steps.begin(), j.steps.end());
    t.structured = t.structured || structured_product(j.kernel.product);
    j.kernel.surface.first = t.surface.place(*j.grid);
    for (int i = 0; i < local_vol_bumped_grids; ++i) {
      if (j.bumped[i] != nullptr) j.kernel.bumped[i].first = t.surface.place(*j.bumped[i]);
    }
  }

  template <typename Rng>
  static moments price_lane(const record& t, const kernels::local_vol_tables<Real>& tab, std::int64_t block, int lane)
  {
    return local_vol_lane<Rng>(t, tab.steps, tab.surface, block, lane);
  }

  static void launch(const device_ref& f, kernels::block_range b, moments* partials, kernels::launch_target at)
  {
    kernels::launch_local_vol_blocks(f, b, partials, at);
  }
  static two_phase_layout two_phase(const std::vector<record>& records)
  {
    int rows = 0;
    for (auto const& t : records) rows = std::max(rows, kernels::local_vol_rows_per_sample(t));
    return {kernels::path_samples_per_block * rows, kernels::path_samples_per_block, rows};
  }
  static void launch_two_phase(const device_ref& f, kernels::block_range b, const kernels::two_phase_scratch<Real>& s,
                               moments* partials, kernels::launch_target at)
  {
    kernels::launch_local_vol_two_phase(f, b, s, partials, at);
  }
};

// Greeks by scenario lanes in either precision; the GPU's Greek kernel (the float family's
// launch_greeks) is float: under --precision double the GPU backend hands Greeks to the host.
template <typename Real>
struct basic_local_vol_greek_family : basic_local_vol_family<Real> {
  using greek_sums = path_greek_moments;
  using typename basic_local_vol_family<Real>::record;

  template <typename Batch>
  static std::optional<trade_greeks> greeks_of(const Batch& b, std::size_t k, const trade_outcome& o)
  {
    return make_path_greeks(o.greek_sums().path_greeks, b.samples[k], b.scales[k], greek_method::central_bumps);
  }
  template <typename Rng>
  static priced_path_greeks greek_lane(const record& t, const kernels::local_vol_tables<Real>& tab, std::int64_t block,
                                       int lane)
  {
    return local_vol_greek_lane<Rng>(t, tab.steps, tab.surface, block, lane);
  }
};

struct local_vol_family : basic_local_vol_greek_family<float> {
  static void launch_greeks(const device_ref& f, kernels::block_range b, moments* partials, greek_sums* greek_partials,
                            kernels::launch_target at)
  {
    kernels::launch_local_vol_greek_blocks(f, b, partials, greek_partials, at);
  }
};
struct double_local_vol_family : basic_local_vol_greek_family<double> {};

}  // namespace mcprice::detail
