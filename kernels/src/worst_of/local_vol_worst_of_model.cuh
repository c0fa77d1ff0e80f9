#pragma once
// The local-vol worst-of model of worst_of_routes.cuh, included by the sources that compile its
// kernels: local_vol_worst_of_kernel.cu (float, Philox; the entry points),
// local_vol_worst_of_kernel_quasi.cu (float, Sobol) and local_vol_worst_of_kernel_double.cu
// (--precision double): each a module of its own (kernel_modules.hpp).
#include "mcprice/kernels/launch/local_vol_worst_of.hpp"
#include "worst_of_routes.cuh"

namespace mcprice::kernels {
namespace {

// Local-vol worst-ofs as worst_of_routes walks them: each asset's log-Euler step on its grid, in
// the path precision Real (the Greeks' kernel is float's only).
template <typename Real>
struct local_vol_worst_of {
  using real = Real;
  using trade = basic_local_vol_worst_of_trade<Real>;
  using tables = basic_local_vol_worst_of_tables<Real>;
  static constexpr const char* blocks_name = "local_vol_worst_of_blocks_kernel";
  static constexpr const char* observations_name = "local_vol_worst_of_observations_kernel";
  static constexpr const char* payoffs_name = "local_vol_worst_of_payoffs_kernel";
  static constexpr const char* greeks_name() { return "local_vol_worst_of_greek_blocks_kernel"; }

  template <typename Stream>
  __device__ __forceinline__ static moments lane(const trade& t, const tables& tab, std::int64_t block, int lane)
  {
    return local_vol_worst_of_lane<Stream>(t, tab, block, lane);
  }
  template <typename Stream>
  __device__ __forceinline__ static priced_basket_greeks greek_lane(const trade& t, const tables& tab,
                                                                    std::int64_t block, int lane)
  {
    return local_vol_worst_of_greek_lane<Stream>(t, tab, block, lane);
  }
  template <typename Stream, bool Antithetic, typename Observe, typename Open>
  __device__ __forceinline__ static void walk(const trade& t, const tables& tab, std::uint64_t seed, Observe&& observe,
                                              Open&& open)
  {
    walk_local_vol_worst_of<Stream, Antithetic>(t, tab, seed, observe, open);
  }
  __device__ __forceinline__ static const basic_local_vol_step<Real>* steps(const trade& t, const tables& tab)
  {
    return tab.steps + t.first_step;
  }
  __device__ __forceinline__ static const Real* log_initials(const trade& t, const tables& tab)
  {
    return tab.log_initials + t.first_asset;
  }
};

}  // namespace

namespace detail {
// local_vol_worst_of_kernel_quasi.cu: the float routes on Sobol points.
void launch_local_vol_worst_of_blocks_quasi(const local_vol_worst_of_ref& f, block_range blocks, moments* partials,
                                            launch_target at);
void launch_local_vol_worst_of_two_phase_quasi(const local_vol_worst_of_ref& f, block_range blocks,
                                               const two_phase_scratch<float>& s, moments* partials,
                                               launch_target at);
void launch_local_vol_worst_of_greek_blocks_quasi(const local_vol_worst_of_ref& f, block_range blocks,
                                                  moments* price_partials, basket_greek_moments* greek_partials,
                                                  launch_target at);
// local_vol_worst_of_kernel_double.cu: the double routes, Philox and Sobol.
void launch_local_vol_worst_of_blocks_double(const basic_local_vol_worst_of_ref<double>& f, block_range blocks,
                                             moments* partials, launch_target at);
void launch_local_vol_worst_of_two_phase_double(const basic_local_vol_worst_of_ref<double>& f, block_range blocks,
                                                const two_phase_scratch<double>& s, moments* partials,
                                                launch_target at);
}  // namespace detail

}  // namespace mcprice::kernels
