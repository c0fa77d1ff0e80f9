#pragma once
// The Heston worst-of model of worst_of_routes.cuh, included by the sources that compile its
// kernels: heston_worst_of_kernel.cu (float, Philox; the entry points),
// heston_worst_of_kernel_quasi.cu (float, Sobol) and heston_worst_of_kernel_double.cu
// (--precision double): each a module of its own (kernel_modules.hpp).
#include "mcprice/kernels/launch/heston_worst_of.hpp"
#include "worst_of_routes.cuh"

namespace mcprice::kernels {
namespace {

// Heston worst-ofs as worst_of_routes walks them: each asset's QE step (and jumps); with
// LocalVol, the mixed worst-ofs', whose local-vol assets step on their grids. Two models, so
// that the local-vol step lives in the mixed kernels only. Real: the path precision (double
// takes the mixed walk for every trade, as its family does; the Greeks' kernels are float's).
template <bool LocalVol, typename Real = float>
struct heston_worst_of {
  using real = Real;
  using trade = basic_heston_worst_of_trade<Real>;
  using tables = basic_heston_worst_of_tables<Real>;
  static constexpr const char* blocks_name =
      LocalVol ? "mixed_worst_of_blocks_kernel" : "heston_worst_of_blocks_kernel";
  static constexpr const char* observations_name =
      LocalVol ? "mixed_worst_of_observations_kernel" : "heston_worst_of_observations_kernel";
  static constexpr const char* payoffs_name =
      LocalVol ? "mixed_worst_of_payoffs_kernel" : "heston_worst_of_payoffs_kernel";
  static constexpr const char* greeks_name()
  {
    return LocalVol ? "mixed_worst_of_greek_blocks_kernel" : "heston_worst_of_greek_blocks_kernel";
  }

  template <typename Stream>
  __device__ __forceinline__ static moments lane(const trade& t, const tables& tab, std::int64_t block, int lane)
  {
    return heston_worst_of_lane<Stream, LocalVol>(t, tab, block, lane);
  }
  template <typename Stream>
  __device__ __forceinline__ static priced_basket_greeks greek_lane(const trade& t, const tables& tab,
                                                                    std::int64_t block, int lane)
  {
    return heston_worst_of_greek_lane<Stream, LocalVol>(t, tab, block, lane);
  }
  template <typename Stream, bool Antithetic, typename Observe, typename Open>
  __device__ __forceinline__ static void walk(const trade& t, const tables& tab, std::uint64_t seed, Observe&& observe,
                                              Open&& open)
  {
    walk_heston_worst_of<Stream, Antithetic, LocalVol>(t, tab, seed, observe, open);
  }
  __device__ __forceinline__ static const basic_heston_step<Real>* steps(const trade& t, const tables& tab)
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
// heston_worst_of_kernel_quasi.cu: the float routes on Sobol points.
void launch_heston_worst_of_blocks_quasi(const heston_worst_of_ref& f, bool local_vol, block_range blocks,
                                         moments* partials, launch_target at);
void launch_heston_worst_of_two_phase_quasi(const heston_worst_of_ref& f, bool local_vol, block_range blocks,
                                            const two_phase_scratch<float>& s, moments* partials, launch_target at);
void launch_heston_worst_of_greek_blocks_quasi(const heston_worst_of_ref& f, bool local_vol, block_range blocks,
                                               moments* price_partials, basket_greek_moments* greek_partials,
                                               launch_target at);
}  // namespace detail

}  // namespace mcprice::kernels
