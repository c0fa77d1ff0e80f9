#include "mcprice/kernels/launch/local_vol_worst_of.hpp"
#include "worst_of_routes.cuh"

namespace mcprice::kernels {
namespace {

// Local-vol worst-ofs as worst_of_routes walks them: each asset's log-Euler step on its grid.
struct local_vol_worst_of {
  using real = float;
  using trade = local_vol_worst_of_trade;
  using tables = local_vol_worst_of_tables;
  static constexpr const char* blocks_name = "local_vol_worst_of_blocks_kernel";
  static constexpr const char* observations_name = "local_vol_worst_of_observations_kernel";
  static constexpr const char* payoffs_name = "local_vol_worst_of_payoffs_kernel";
  static constexpr const char* greeks_name = "local_vol_worst_of_greek_blocks_kernel";

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
  __device__ __forceinline__ static const local_vol_step* steps(const trade& t, const tables& tab)
  {
    return tab.steps + t.first_step;
  }
  __device__ __forceinline__ static const float* log_initials(const trade& t, const tables& tab)
  {
    return tab.log_initials + t.first_asset;
  }
};

}  // namespace

void launch_local_vol_worst_of_blocks(const local_vol_worst_of_ref& f, block_range blocks, moments* partials,
                                      launch_target at)
{
  worst_of_routes::launch_blocks<local_vol_worst_of>(f, blocks, partials, at);
}

void launch_local_vol_worst_of_two_phase(const local_vol_worst_of_ref& f, block_range blocks,
                                         const two_phase_scratch<float>& s, moments* partials, launch_target at)
{
  worst_of_routes::launch_two_phase<local_vol_worst_of>(f, blocks, s, partials, at);
}

void launch_local_vol_worst_of_greek_blocks(const local_vol_worst_of_ref& f, block_range blocks,
                                            moments* price_partials, basket_greek_moments* greek_partials,
                                            launch_target at)
{
  worst_of_routes::launch_greek_blocks<local_vol_worst_of>(f, blocks, price_partials, greek_partials, at);
}

}  // namespace mcprice::kernels
