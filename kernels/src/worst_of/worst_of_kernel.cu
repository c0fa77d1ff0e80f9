#include "mcprice/kernels/launch/canonical_blocks.cuh"
#include "mcprice/kernels/launch/stream_choice.cuh"
#include "mcprice/kernels/launch/worst_of.hpp"
#include "mcprice/kernels/layout/two_phase_rows.cuh"

namespace mcprice::kernels {
namespace {

using policy = tuning::european_policy;
using two_phase::lanes;
using two_phase::row_index;
using two_phase::sample_of;

template <typename Real, typename Stream>
struct worst_of_fused_lane {
  worst_of_tables<Real> tab;
  __device__ __forceinline__ moments operator()(const basic_worst_of_trade<Real>& t, std::int64_t block_in_trade,
                                                std::int64_t, int lane) const
  {
    return worst_of_lane<Stream>(t, tab.grid, tab.log_initials, tab.factors, block_in_trade, lane);
  }
};

template <typename Real, typename Stream>
__global__ void __launch_bounds__(policy::threads_per_block)
    worst_of_blocks_kernel(const basic_worst_of_trade<Real>* __restrict__ trades, int num_trades,
                           worst_of_tables<Real> tab, std::int64_t block_begin, std::int64_t block_end,
                           moments* __restrict__ block_moments)
{
  detail::reduce_canonical_blocks(trades, num_trades, block_begin, block_end, block_moments,
                                  worst_of_fused_lane<Real, Stream>{tab});
}

// Rows of a sample: step k's worst log performance of side a at 2k, its variance at 2k + 1;
// side b's after side a's.
template <typename Real, typename Stream>
struct observation_lane {
  worst_of_tables<Real> tab;
  Real* paths;
  int rows;
  std::int64_t block_begin;

  __device__ __forceinline__ void operator()(const basic_worst_of_trade<Real>& t, std::int64_t block_in_trade,
                                             std::int64_t b, int lane) const
  {
    std::int64_t const sample = sample_of(t, block_in_trade, lane);
    if (sample < 0) return;
    std::int64_t const j = b - block_begin;
    int const side_rows = 2 * t.steps;
    auto const store = [&](int k, const basic_path_step<Real>&, const worst_of_step<Real>& wa,
                           const worst_of_step<Real>& wb) {
      paths[row_index(j, rows, 2 * k, lane)] = wa.x;
      paths[row_index(j, rows, 2 * k + 1, lane)] = wa.var;
      if (t.antithetic) {
        paths[row_index(j, rows, side_rows + 2 * k, lane)] = wb.x;
        paths[row_index(j, rows, side_rows + 2 * k + 1, lane)] = wb.var;
      }
    };
    const basic_path_step<Real>* steps = tab.grid + t.first_step;
    auto const always = [] { return true; };
    auto const seed = static_cast<std::uint64_t>(sample);
    if (t.antithetic) {
      walk_worst_of<Stream, true>(t, steps, tab.log_initials + t.first_asset, tab.factors + t.first_factor, seed, store,
                                  always);
    } else {
      walk_worst_of<Stream, false>(t, steps, tab.log_initials + t.first_asset, tab.factors + t.first_factor, seed,
                                   store, always);
    }
  }
};

// A side's value from its stored rows, through the fused route's observations.
template <typename Real>
__device__ __forceinline__ Real replay_side(const basic_worst_of_trade<Real>& t, const worst_of_tables<Real>& tab,
                                            const Real* paths, int rows, std::int64_t j, int lane, int first_row)
{
  const basic_path_gbm_trade<Real>& base = t;
  const basic_path_step<Real>* steps = tab.grid + t.first_step;
  auto const levels = observation_rows_of(steps, t);
  auto state = worst_of_start(t, tab.log_initials + t.first_asset);
  for (int k = 0; k < t.steps && !state.settled(); ++k) {
    basic_path_step<Real> const s = steps[static_cast<std::int64_t>(k) * t.assets];
    state.template observe<path_product::autocallable>(
        base, Real(0), paths[row_index(j, rows, first_row + 2 * k, lane)],
        paths[row_index(j, rows, first_row + 2 * k + 1, lane)], s.fixing, s.hit_value, Real(0), levels);
  }
  return state.template settle<path_product::autocallable>(base);
}

template <typename Real>
struct payoff_lane {
  worst_of_tables<Real> tab;
  const Real* paths;
  int rows;
  Real* payoffs;
  std::int64_t block_begin;

  __device__ __forceinline__ void operator()(const basic_worst_of_trade<Real>& t, std::int64_t block_in_trade,
                                             std::int64_t b, int lane) const
  {
    if (sample_of(t, block_in_trade, lane) < 0) return;
    std::int64_t const j = b - block_begin;
    Real const up = replay_side(t, tab, paths, rows, j, lane, 0);
    payoffs[j * lanes + lane] =
        t.antithetic ? Real(0.5) * (up + replay_side(t, tab, paths, rows, j, lane, 2 * t.steps)) : up;
  }
};

template <typename Real, typename Stream>
__global__ void __launch_bounds__(policy::threads_per_block)
    worst_of_observations_kernel(const basic_worst_of_trade<Real>* __restrict__ trades, int num_trades,
                                 worst_of_tables<Real> tab, std::int64_t block_begin, std::int64_t block_end,
                                 Real* __restrict__ paths, int rows)
{
  detail::for_canonical_blocks(trades, num_trades, block_begin, block_end,
                               observation_lane<Real, Stream>{tab, paths, rows, block_begin});
}

template <typename Real>
__global__ void __launch_bounds__(policy::threads_per_block)
    worst_of_payoffs_kernel(const basic_worst_of_trade<Real>* __restrict__ trades, int num_trades,
                            worst_of_tables<Real> tab, std::int64_t block_begin, std::int64_t block_end,
                            const Real* __restrict__ paths, int rows, Real* __restrict__ payoffs)
{
  detail::for_canonical_blocks(trades, num_trades, block_begin, block_end,
                               payoff_lane<Real>{tab, paths, rows, payoffs, block_begin});
}

}  // namespace

template <typename Real>
void launch_worst_of_blocks(const worst_of_ref<Real>& f, block_range blocks, moments* partials, launch_target at)
{
  if (f.num_trades == 0) return;
  detail::with_normal_stream<rng::device_sobol_stream<worst_of_sobol_assets, Real>>(at, [&](auto stream) {
    detail::launch_persistent(worst_of_blocks_kernel<Real, typename decltype(stream)::type>, "worst_of_blocks_kernel",
                              blocks.size(), at.grid_blocks, at.stream, f.trades, f.num_trades, f.tables, blocks.begin,
                              blocks.end, partials);
  });
}

template <typename Real>
void launch_worst_of_two_phase(const worst_of_ref<Real>& f, block_range blocks, const two_phase_scratch<Real>& s,
                               moments* partials, launch_target at)
{
  if (f.num_trades == 0) return;
  detail::with_normal_stream<rng::device_sobol_stream<worst_of_sobol_assets, Real>>(at, [&](auto stream) {
    detail::launch_persistent(worst_of_observations_kernel<Real, typename decltype(stream)::type>,
                              "worst_of_observations_kernel", blocks.size(), at.grid_blocks, at.stream, f.trades,
                              f.num_trades, f.tables, blocks.begin, blocks.end, s.paths, s.rows);
  });
  detail::launch_persistent(worst_of_payoffs_kernel<Real>, "worst_of_payoffs_kernel", blocks.size(), at.grid_blocks,
                            at.stream, f.trades, f.num_trades, f.tables, blocks.begin, blocks.end, s.paths, s.rows,
                            s.payoffs);
  two_phase::launch_sample_blocks(f, blocks, s.payoffs, partials, at);
}

template void launch_worst_of_blocks(const worst_of_ref<float>&, block_range, moments*, launch_target);
template void launch_worst_of_blocks(const worst_of_ref<double>&, block_range, moments*, launch_target);
template void launch_worst_of_two_phase(const worst_of_ref<float>&, block_range, const two_phase_scratch<float>&,
                                        moments*, launch_target);
template void launch_worst_of_two_phase(const worst_of_ref<double>&, block_range, const two_phase_scratch<double>&,
                                        moments*, launch_target);

}  // namespace mcprice::kernels
