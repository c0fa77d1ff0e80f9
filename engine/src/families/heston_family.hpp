#pragma once
// Every single-asset product on a Heston asset (Andersen's QE scheme; Europeans by conditional
// Monte Carlo): each trade's QE steps in one table. Greeks: central differences on scenario
// lanes. --precision double has a family of its own (its Greeks on the host).
#include "backends/family_run.hpp"
#include "families/family_batch.hpp"
#include "families/trade_route.hpp"
#include "mcprice/kernels/launch/heston.hpp"
#include "mcprice/kernels/models/heston_sample.hpp"
#include "products/path_setup.hpp"
#include "statistics/greek_statistics.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <type_traits>
#include <vector>

namespace mcprice::detail {

template <typename Real>
struct basic_heston_family {
  using record = basic_heston_trade<Real>;
  using job = basic_heston_job<Real>;
  using result_input = no_result_input;
  using greek_sums = void;
  using real = Real;
  using device_ref = kernels::heston_ref<Real>;
  static constexpr int normals_per_sample = path_normals_per_sample;
  static constexpr bool boxed_job = std::is_same_v<Real, double>;
  // Bridged normals a step of a Sobol stream (variance, log spot, a continuous lookback's third; rng/sobol_stream.hpp).
  static constexpr int sobol_factors = 3;

  struct tables {
    std::vector<basic_heston_step<Real>> steps;
    bool europeans_only{true};  // so far every trade is a European (a leaner GPU kernel)

    template <typename At>
    [[nodiscard]] kernels::heston_tables<Real> place(At&& at) const
    {
      return {at(steps), europeans_only};
    }
  };

  static bool takes(const trade_route& r)
  {
    return r.in_double == std::is_same_v<Real, double> && r.european_exercise() && !r.multi_asset() && r.on_heston();
  }
  static job make_job(const trade_route& r, const market_data& market, const engine_options& options)
  {
    return make_heston_job<Real>(r.t, r.first, market, options);
  }
  static void append_tables(tables& t, job& h)
  {
    h.kernel.first_step = static_cast<std::int32_t>(t.steps.size());
    t.steps.insert(t.steps.end(), h.steps.begin(), h.steps.end());
    t.europeans_only = t.europeans_only && h.kernel.product == path_product::european;
  }

  template <typename Rng>
  static moments price_lane(const record& t, const kernels::heston_tables<Real>& tab, std::int64_t block, int lane)
  {
    return heston_lane<Rng>(t, tab.steps, block, lane);
  }

  static void launch(const device_ref& f, kernels::block_range b, moments* partials, kernels::launch_target at)
  {
    kernels::launch_heston_blocks(f, b, partials, at);
  }
  static two_phase_layout two_phase(const std::vector<record>& records)
  {
    int rows = 0;
    for (auto const& t : records) rows = std::max(rows, kernels::heston_rows_per_sample(t));
    return {kernels::path_samples_per_block * rows, kernels::path_samples_per_block, rows};
  }
  static void launch_two_phase(const device_ref& f, kernels::block_range b, const kernels::two_phase_scratch<Real>& s,
                               moments* partials, kernels::launch_target at)
  {
    kernels::launch_heston_two_phase(f, b, s, partials, at);
  }
};

// Greeks by scenario lanes in either precision; the GPU's Greek kernel (the float family's
// launch_greeks) is float: under --precision double the GPU backend hands Greeks to the host.
template <typename Real>
struct basic_heston_greek_family : basic_heston_family<Real> {
  using greek_sums = path_greek_moments;
  using typename basic_heston_family<Real>::record;

  template <typename Batch>
  static std::optional<trade_greeks> greeks_of(const Batch& b, std::size_t k, const trade_outcome& o)
  {
    return make_path_greeks(o.greek_sums().path_greeks, b.samples[k], b.scales[k], greek_method::central_bumps);
  }
  template <typename Rng>
  static priced_path_greeks greek_lane(const record& t, const kernels::heston_tables<Real>& tab, std::int64_t block,
                                       int lane)
  {
    return heston_greek_lane<Rng>(t, tab.steps, block, lane);
  }
};

struct heston_family : basic_heston_greek_family<float> {
  static void launch_greeks(const device_ref& f, kernels::block_range b, moments* partials, greek_sums* greek_partials,
                            kernels::launch_target at)
  {
    kernels::launch_heston_greek_blocks(f, b, partials, greek_partials, at);
  }
};
struct double_heston_family : basic_heston_greek_family<double> {};

}  // namespace mcprice::detail
