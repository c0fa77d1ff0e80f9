#include "mcprice/kernels/launch/kernel_module.cuh"
#include "mcprice/kernels/launch/paths.hpp"
#include "mcprice/kernels/launch/stream_choice.cuh"
#include "mcprice/kernels/layout/two_phase_rows.cuh"

namespace mcprice::kernels {

MCPRICE_KERNEL_MODULE(kernel_group::two_phase)
namespace {

using policy = tuning::european_policy;
using two_phase::lanes;
using two_phase::row_index;
using two_phase::sample_of;

// Real: the path precision (float; double for --precision double); scratch holds Real. Stream:
// the normal stream of the fused kernel (stream_choice.cuh), so both routes draw the same numbers.
template <typename Real, typename Stream>
struct observation_lane {
  const basic_path_step<Real>* grid;
  Real* paths;
  int rows;
  std::int64_t block_begin;

  __device__ __forceinline__ void operator()(const basic_path_gbm_trade<Real>& t, std::int64_t block_in_trade,
                                             std::int64_t b, int lane) const
  {
    std::int64_t const sample = sample_of(t, block_in_trade, lane);
    if (sample < 0) return;
    std::int64_t const j = b - block_begin;
    Stream rng(t.key, static_cast<std::uint64_t>(sample));
    const basic_path_step<Real>* steps = grid + t.first_step;
    Real xa = 0;
    Real xb = 0;
    bool const bridge_normals = t.product == path_product::lookback && t.continuous;
    two_phase::sample_rows const r{t.steps, t.antithetic ? 2 : 1, false};
    // The increments are formed as path_state::advance forms them, from the same walk.
    auto const store = [&](int k, Real z, Real u, auto jump) {
      basic_path_step<Real> const s = steps[k];
      xa = xa + with_jump(math::fma(s.vol, z, s.drift), gbm_step_jump(t, steps, k, jump));
      paths[row_index(j, rows, k, lane)] = xa;
      if (t.antithetic) {
        xb = xb + with_jump(math::fma(s.vol, -z, s.drift), gbm_step_jump(t, steps, k, jump.antithetic()));
        paths[row_index(j, rows, t.steps + k, lane)] = xb;
      }
      if (bridge_normals) paths[row_index(j, rows, r.u(k), lane)] = u;
    };
    if (t.product == path_product::lookback) for_path_step_normals<path_product::lookback>(t, rng, store);
    else for_path_step_normals<path_product::asian>(t, rng, store);
  }
};

template <typename Real, typename Stream>
__global__ void __launch_bounds__(policy::threads_per_block)
    path_observations_kernel(const basic_path_gbm_trade<Real>* __restrict__ trades, int num_trades,
                             const basic_path_step<Real>* __restrict__ grid, block_range blocks,
                             Real* __restrict__ paths, int rows)
{
  detail::for_canonical_blocks(trades, num_trades, blocks,
                               observation_lane<Real, Stream>{grid, paths, rows, blocks.begin});
}

template <typename Real>
__global__ void __launch_bounds__(policy::threads_per_block)
    path_payoffs_kernel(const basic_path_gbm_trade<Real>* __restrict__ trades, int num_trades,
                        const basic_path_step<Real>* __restrict__ grid, block_range blocks,
                        const Real* __restrict__ paths, int rows, Real* __restrict__ payoffs)
{
  using lane = two_phase::replay_lane<two_phase::gbm_replay, basic_path_step<Real>, Real>;
  detail::for_canonical_blocks(trades, num_trades, blocks, lane{grid, paths, rows, payoffs, blocks.begin});
}

}  // namespace

template <typename Real>
void launch_path_two_phase(const path_ref<Real>& f, block_range blocks, const two_phase_scratch<Real>& s,
                           moments* partials, launch_target at)
{
  if (f.num_trades == 0) return;
  detail::with_normal_stream<rng::device_sobol_stream<2, Real>>(at, [&](auto stream) {
    detail::launch_persistent(path_observations_kernel<Real, typename decltype(stream)::type>,
                              "path_observations_kernel", blocks.size(), at.grid_blocks, at.stream, f.trades,
                              f.num_trades, f.tables.grid, blocks, s.paths, s.rows);
  });
  detail::launch_persistent(path_payoffs_kernel<Real>, "path_payoffs_kernel", blocks.size(), at.grid_blocks, at.stream,
                            f.trades, f.num_trades, f.tables.grid, blocks, s.paths, s.rows, s.payoffs);
  two_phase::launch_sample_blocks(f, blocks, s.payoffs, partials, at);
}

template void launch_path_two_phase(const path_ref<float>&, block_range, const two_phase_scratch<float>&, moments*,
                                    launch_target);
template void launch_path_two_phase(const path_ref<double>&, block_range, const two_phase_scratch<double>&, moments*,
                                    launch_target);

}  // namespace mcprice::kernels
