#include "mcprice/kernels/launch/kernel_module.cuh"
#include "mcprice/kernels/launch/local_vol.hpp"
#include "mcprice/kernels/launch/stream_choice.cuh"
#include "mcprice/kernels/layout/two_phase_rows.cuh"

namespace mcprice::kernels {

MCPRICE_KERNEL_MODULE(kernel_group::two_phase)
namespace {

using policy = tuning::european_policy;
using two_phase::row_index;
using two_phase::sample_of;

// Stream: the fused kernel's normal stream (stream_choice.cuh), so both routes draw the same
// numbers; the steps are formed as local_vol_sample forms them.
template <typename Real, typename Stream>
struct observation_lane {
  const basic_local_vol_step<Real>* grid;
  const basic_vol_pair<Real>* surface;
  Real* paths;
  int rows;
  std::int64_t block_begin;

  __device__ __forceinline__ void operator()(const basic_local_vol_trade<Real>& h, std::int64_t block_in_trade,
                                             std::int64_t b, int lane) const
  {
    std::int64_t const sample = sample_of(h, block_in_trade, lane);
    if (sample < 0) return;
    std::int64_t const j = b - block_begin;
    two_phase::sample_rows const r{h.steps, h.antithetic ? 2 : 1, true};
    const basic_local_vol_step<Real>* steps = grid + h.first_step;
    Stream rng(h.key, static_cast<std::uint64_t>(sample));
    Real xa = 0;
    Real xb = 0;
    bool const bridge_normals = h.product == path_product::lookback && h.continuous;
    auto const step = [&](int k, Real z, Real u, auto) {
      basic_local_vol_step<Real> const s = steps[k];
      Real var = 0;
      xa = xa + local_vol_increment(h.surface, surface, s, xa, z, var);
      paths[row_index(j, rows, r.x(0, k), lane)] = xa;
      paths[row_index(j, rows, r.var(0, k), lane)] = var;
      if (h.antithetic) {
        xb = xb + local_vol_increment(h.surface, surface, s, xb, -z, var);
        paths[row_index(j, rows, r.x(1, k), lane)] = xb;
        paths[row_index(j, rows, r.var(1, k), lane)] = var;
      }
      if (bridge_normals) paths[row_index(j, rows, r.u(k), lane)] = u;
    };
    if (h.product == path_product::lookback) for_path_step_normals<path_product::lookback>(h, rng, step);
    else for_path_step_normals<path_product::asian>(h, rng, step);
  }
};

template <typename Real, typename Stream>
__global__ void __launch_bounds__(policy::threads_per_block)
    local_vol_observations_kernel(const basic_local_vol_trade<Real>* __restrict__ trades, int num_trades,
                                  const basic_local_vol_step<Real>* __restrict__ grid,
                                  const basic_vol_pair<Real>* __restrict__ surface, block_range blocks,
                                  Real* __restrict__ paths, int rows)
{
  detail::for_canonical_blocks(trades, num_trades, blocks,
                               observation_lane<Real, Stream>{grid, surface, paths, rows, blocks.begin});
}

template <typename Real>
__global__ void __launch_bounds__(policy::threads_per_block)
    local_vol_payoffs_kernel(const basic_local_vol_trade<Real>* __restrict__ trades, int num_trades,
                             const basic_local_vol_step<Real>* __restrict__ grid, block_range blocks,
                             const Real* __restrict__ paths, int rows, Real* __restrict__ payoffs)
{
  using step = basic_local_vol_step<Real>;
  using lane = two_phase::replay_lane<two_phase::stored_path_replay<step>, step, Real>;
  detail::for_canonical_blocks(trades, num_trades, blocks, lane{grid, paths, rows, payoffs, blocks.begin});
}

}  // namespace

template <typename Real>
void launch_local_vol_two_phase(const local_vol_ref<Real>& f, block_range blocks, const two_phase_scratch<Real>& s,
                                moments* partials, launch_target at)
{
  if (f.num_trades == 0) return;
  detail::with_normal_stream<rng::device_sobol_stream<2, Real>>(at, [&](auto stream) {
    detail::launch_persistent(local_vol_observations_kernel<Real, typename decltype(stream)::type>,
                              "local_vol_observations_kernel", blocks.size(), at.grid_blocks, at.stream, f.trades,
                              f.num_trades, f.tables.steps, f.tables.surface, blocks, s.paths, s.rows);
  });
  detail::launch_persistent(local_vol_payoffs_kernel<Real>, "local_vol_payoffs_kernel", blocks.size(), at.grid_blocks,
                            at.stream, f.trades, f.num_trades, f.tables.steps, blocks, s.paths, s.rows, s.payoffs);
  two_phase::launch_sample_blocks(f, blocks, s.payoffs, partials, at);
}

template void launch_local_vol_two_phase(const local_vol_ref<float>&, block_range, const two_phase_scratch<float>&,
                                         moments*, launch_target);
template void launch_local_vol_two_phase(const local_vol_ref<double>&, block_range, const two_phase_scratch<double>&,
                                         moments*, launch_target);

}  // namespace mcprice::kernels
