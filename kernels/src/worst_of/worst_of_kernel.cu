#include "mcprice/kernels/launch/kernel_module.cuh"
#include "mcprice/kernels/launch/worst_of.hpp"
#include "worst_of_routes.cuh"

namespace mcprice::kernels {

MCPRICE_KERNEL_MODULE(kernel_group::prices)
namespace {

// GBM worst-ofs as worst_of_routes walks them: each asset's exact steps from the step rows.
template <typename Real>
struct gbm_worst_of {
  using real = Real;
  using trade = basic_worst_of_trade<Real>;
  using tables = worst_of_tables<Real>;
  static constexpr const char* blocks_name = "worst_of_blocks_kernel";
  static constexpr const char* observations_name = "worst_of_observations_kernel";
  static constexpr const char* payoffs_name = "worst_of_payoffs_kernel";

  template <typename Stream>
  __device__ __forceinline__ static moments lane(const trade& t, const tables& tab, std::int64_t block, int lane)
  {
    return worst_of_lane<Stream>(t, tab.grid, tab.log_initials, tab.factors, block, lane);
  }
  template <typename Stream, bool Antithetic, typename Observe, typename Open>
  __device__ __forceinline__ static void walk(const trade& t, const tables& tab, std::uint64_t seed, Observe&& observe,
                                              Open&& open)
  {
    walk_worst_of<Stream, Antithetic>(t, steps(t, tab), log_initials(t, tab), tab.factors + t.first_factor, seed,
                                      observe, open);
  }
  __device__ __forceinline__ static const basic_path_step<Real>* steps(const trade& t, const tables& tab)
  {
    return tab.grid + t.first_step;
  }
  __device__ __forceinline__ static const Real* log_initials(const trade& t, const tables& tab)
  {
    return tab.log_initials + t.first_asset;
  }
};

}  // namespace

template <typename Real>
void launch_worst_of_blocks(const worst_of_ref<Real>& f, block_range blocks, moments* partials, launch_target at)
{
  worst_of_routes::launch_blocks<gbm_worst_of<Real>>(f, blocks, partials, at);
}

template <typename Real>
void launch_worst_of_two_phase(const worst_of_ref<Real>& f, block_range blocks, const two_phase_scratch<Real>& s,
                               moments* partials, launch_target at)
{
  worst_of_routes::launch_two_phase<gbm_worst_of<Real>>(f, blocks, s, partials, at);
}

template void launch_worst_of_blocks(const worst_of_ref<float>&, block_range, moments*, launch_target);
template void launch_worst_of_blocks(const worst_of_ref<double>&, block_range, moments*, launch_target);
template void launch_worst_of_two_phase(const worst_of_ref<float>&, block_range, const two_phase_scratch<float>&,
                                        moments*, launch_target);
template void launch_worst_of_two_phase(const worst_of_ref<double>&, block_range, const two_phase_scratch<double>&,
                                        moments*, launch_target);

}  // namespace mcprice::kernels
