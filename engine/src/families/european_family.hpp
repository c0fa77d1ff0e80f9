#pragma once
// Vanillas and digitals on one GBM asset: one exact step to expiry, four samples a normal draw.
// Greeks: the pathwise and likelihood-ratio channels of the price's own pass (docs/greeks.md).
#include "backends/family_run.hpp"
#include "families/family_batch.hpp"
#include "families/trade_route.hpp"
#include "mcprice/kernels/launch/european.hpp"
#include "products/european_setup.hpp"
#include "statistics/greek_statistics.hpp"

#include <optional>
#include <vector>

namespace mcprice::detail {

struct european_family {
  using record = european_gbm_trade;
  using job = european_job;
  using tables = no_host_tables;
  using result_input = greek_inputs;
  using greek_sums = greek_moments;
  using real = float;
  using device_ref = kernels::european_ref;
  static constexpr int normals_per_sample = european_normals_per_sample;
  static constexpr bool boxed_job = false;
  // Bridged normals a step of a Sobol stream (0: none; rng/sobol_stream.hpp).
  static constexpr int sobol_factors = 0;

  // With jumps, vanillas and digitals are one-step paths (gbm_path_family.hpp).
  static bool takes(const trade_route& r) { return r.single_gbm(false) && r.terminal() && !r.jumps(); }
  static job make_job(const trade_route& r, const market_data& market, const engine_options& options)
  {
    return make_european_job(r.t, r.first, market, options);
  }
  static void append_tables(tables&, job&) {}
  static result_input result_input_of(const job& j) { return j.greeks; }

  static std::optional<trade_greeks> greeks_of(const family_batch<european_family>& b, std::size_t k,
                                               const trade_outcome& o)
  {
    return make_greeks(o.sums, o.greek_sums().greeks, b.samples[k], b.scales[k], b.result_inputs[k]);
  }

  // The CPU backend's lanes (the GPU kernels inline the same per-path code).
  template <typename Rng>
  static moments price_lane(const record& t, kernels::no_tables, std::int64_t block, int lane)
  {
    return european_lane<Rng>(t, block, lane);
  }
  template <typename Rng>
  static priced_greeks greek_lane(const record& t, kernels::no_tables, std::int64_t block, int lane)
  {
    return european_greek_lane<Rng>(t, block, lane);
  }

  // The GPU launches, by route.
  static void launch(const device_ref& f, kernels::block_range b, moments* partials, kernels::launch_target at)
  {
    kernels::launch_european_blocks(f, b, partials, at);
  }
  static two_phase_layout two_phase(const std::vector<record>&)
  {
    return {kernels::path_floats_per_block, kernels::payoff_floats_per_block, 0};
  }
  static void launch_two_phase(const device_ref& f, kernels::block_range b, const kernels::two_phase_scratch<real>& s,
                               moments* partials, kernels::launch_target at)
  {
    kernels::launch_european_two_phase(f, b, s, partials, at);
  }
  static void launch_greeks(const device_ref& f, kernels::block_range b, moments* partials, greek_sums* greek_partials,
                            kernels::launch_target at)
  {
    kernels::launch_european_greek_blocks(f, b, partials, greek_partials, at);
  }
};

}  // namespace mcprice::detail
