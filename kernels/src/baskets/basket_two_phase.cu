#include "mcprice/kernels/launch/baskets.hpp"
#include "mcprice/kernels/launch/kernel_module.cuh"
#include "mcprice/kernels/launch/stream_choice.cuh"
#include "mcprice/kernels/layout/two_phase_rows.cuh"

namespace mcprice::kernels {

MCPRICE_KERNEL_MODULE(kernel_group::two_phase)
namespace {

using policy = tuning::european_policy;
using two_phase::lanes;
using two_phase::row_index;
using two_phase::sample_of;

// Rows of a sample: the terminal spots of path a, asset by asset, then of path b. Real: the
// path precision (float; double for --precision double); scratch holds Real. Stream: the normal
// stream of the fused kernel (stream_choice.cuh), so both routes draw the same numbers.
template <typename Real, typename Stream>
struct observation_lane {
  const basic_basket_asset<Real>* assets;
  const Real* factors;
  Real* paths;
  int rows;
  std::int64_t block_begin;

  __device__ __forceinline__ void operator()(const basic_basket_gbm_trade<Real>& t, std::int64_t block_in_trade,
                                             std::int64_t b, int lane) const
  {
    std::int64_t const sample = sample_of(t, block_in_trade, lane);
    if (sample < 0) return;
    std::int64_t const j = b - block_begin;
    Stream rng(t.key, static_cast<std::uint64_t>(sample));
    Real z[max_basket_assets];
    basket_normals(t, rng, z);
    const basic_basket_asset<Real>* a = assets + t.first_asset;
    const Real* factor = factors + t.first_factor;
    for (int i = 0; i < t.assets; ++i) {
      paths[row_index(j, rows, i, lane)] = basket_terminal_spot(t, a, factor, z, Real(1), i);
      if (t.antithetic) {
        paths[row_index(j, rows, t.assets + i, lane)] = basket_terminal_spot(t, a, factor, z, Real(-1), i);
      }
    }
  }
};

template <typename Real>
struct payoff_lane {
  const basic_basket_asset<Real>* assets;
  const Real* paths;
  int rows;
  Real* payoffs;
  std::int64_t block_begin;

  __device__ __forceinline__ void operator()(const basic_basket_gbm_trade<Real>& t, std::int64_t block_in_trade,
                                             std::int64_t b, int lane) const
  {
    if (sample_of(t, block_in_trade, lane) < 0) return;
    std::int64_t const j = b - block_begin;
    const basic_basket_asset<Real>* a = assets + t.first_asset;
    Real const up = basket_payoff(t, a, [&](int i) { return paths[row_index(j, rows, i, lane)]; });
    payoffs[j * lanes + lane] =
        t.antithetic
            ? Real(0.5) *
                  (up + basket_payoff(t, a, [&](int i) { return paths[row_index(j, rows, t.assets + i, lane)]; }))
            : up;
  }
};

template <typename Real, typename Stream>
__global__ void __launch_bounds__(policy::threads_per_block)
    basket_observations_kernel(const basic_basket_gbm_trade<Real>* __restrict__ trades, int num_trades,
                               const basic_basket_asset<Real>* __restrict__ assets, const Real* __restrict__ factors,
                               block_range blocks, Real* __restrict__ paths, int rows)
{
  detail::for_canonical_blocks(trades, num_trades, blocks,
                               observation_lane<Real, Stream>{assets, factors, paths, rows, blocks.begin});
}

template <typename Real>
__global__ void __launch_bounds__(policy::threads_per_block)
    basket_payoffs_kernel(const basic_basket_gbm_trade<Real>* __restrict__ trades, int num_trades,
                          const basic_basket_asset<Real>* __restrict__ assets, block_range blocks,
                          const Real* __restrict__ paths, int rows, Real* __restrict__ payoffs)
{
  detail::for_canonical_blocks(trades, num_trades, blocks,
                               payoff_lane<Real>{assets, paths, rows, payoffs, blocks.begin});
}

}  // namespace

template <typename Real>
void launch_basket_two_phase(const basket_ref<Real>& f, block_range blocks, const two_phase_scratch<Real>& s,
                             moments* partials, launch_target at)
{
  if (f.num_trades == 0) return;
  detail::with_normal_stream<rng::device_sobol_stream<0, Real>>(at, [&](auto stream) {
    detail::launch_persistent(basket_observations_kernel<Real, typename decltype(stream)::type>,
                              "basket_observations_kernel", blocks.size(), at.grid_blocks, at.stream, f.trades,
                              f.num_trades, f.tables.assets, f.tables.factors, blocks, s.paths, s.rows);
  });
  detail::launch_persistent(basket_payoffs_kernel<Real>, "basket_payoffs_kernel", blocks.size(), at.grid_blocks,
                            at.stream, f.trades, f.num_trades, f.tables.assets, blocks, s.paths, s.rows, s.payoffs);
  two_phase::launch_sample_blocks(f, blocks, s.payoffs, partials, at);
}

template void launch_basket_two_phase(const basket_ref<float>&, block_range, const two_phase_scratch<float>&, moments*,
                                      launch_target);
template void launch_basket_two_phase(const basket_ref<double>&, block_range, const two_phase_scratch<double>&,
                                      moments*, launch_target);

}  // namespace mcprice::kernels
