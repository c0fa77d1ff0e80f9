#include "mcprice/kernels/launch/heston.hpp"
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

// Real: the path precision (float; double for --precision double); scratch holds Real. Stream:
// the normal stream of the fused kernel (stream_choice.cuh), so both routes draw the same numbers.
template <typename Real, typename Stream>
struct observation_lane {
  const basic_heston_step<Real>* grid;
  Real* paths;
  int rows;
  std::int64_t block_begin;

  __device__ __forceinline__ void operator()(const basic_heston_trade<Real>& h, std::int64_t block_in_trade,
                                             std::int64_t b, int lane) const
  {
    std::int64_t const sample = sample_of(h, block_in_trade, lane);
    if (sample < 0) return;
    std::int64_t const j = b - block_begin;
    two_phase::sample_rows const r{h.steps, h.antithetic ? 2 : 1, true};
    const basic_heston_step<Real>* steps = grid + h.first_step;
    if (h.product == path_product::european) {
      variance_stream<Stream, Real> draws(h.key, static_cast<std::uint64_t>(sample));
      // The conditional log spot's mean and variance after each step, as heston_european_sample
      // sums them (the mean complete after every fourth step and the last: heston_terminal).
      Real va = h.v0;
      Real vb = h.v0;
      heston_terminal<Real> a{};
      heston_terminal<Real> b{};
      for_heston_variance_draws<Real>(h.steps, draws, [&](int k, const conditional_draw<Real>& draw, bool fold) {
        basic_heston_step<Real> const s = steps[k];
        heston_conditional_step(h.xi, s, va, draw, a);
        if (fold) a.fold();
        paths[row_index(j, rows, r.x(0, k), lane)] = a.x;
        paths[row_index(j, rows, r.var(0, k), lane)] = a.w;
        if (h.antithetic) {
          heston_conditional_step(h.xi, s, vb, draw.antithetic(), b);
          if (fold) b.fold();
          paths[row_index(j, rows, r.x(1, k), lane)] = b.x;
          paths[row_index(j, rows, r.var(1, k), lane)] = b.w;
        }
      });
      if (h.jumps.intensity > Real(0)) {
        // The replay reads the last step's rows alone (heston_european_paths' jump count).
        int const last = h.steps - 1;
        add_jump_counts<true>(h, draws, a, b);
        paths[row_index(j, rows, r.x(0, last), lane)] = a.x;
        paths[row_index(j, rows, r.var(0, last), lane)] = a.w;
        if (h.antithetic) {
          paths[row_index(j, rows, r.x(1, last), lane)] = b.x;
          paths[row_index(j, rows, r.var(1, last), lane)] = b.w;
        }
      }
      return;
    }
    Stream rng(h.key, static_cast<std::uint64_t>(sample));
    Real va = h.v0;
    Real vb = h.v0;
    Real xa = 0;
    Real xb = 0;
    // The steps are formed as heston_sample forms them.
    auto const step = [&](int k, const basic_qe_paired_draw<Real>& draw, Real z_x, Real u, auto jump) {
      basic_heston_step<Real> const s = steps[k];
      Real dx = 0;
      Real var = 0;
      heston_qe_step(h, s, va, draw, z_x, dx, var);
      xa = xa + with_jump(dx, heston_step_jump(h, s.dt, jump));
      paths[row_index(j, rows, r.x(0, k), lane)] = xa;
      paths[row_index(j, rows, r.var(0, k), lane)] = var;
      if (h.antithetic) {
        heston_qe_step(h, s, vb, draw.antithetic(), -z_x, dx, var);
        xb = xb + with_jump(dx, heston_step_jump(h, s.dt, jump.antithetic()));
        paths[row_index(j, rows, r.x(1, k), lane)] = xb;
        paths[row_index(j, rows, r.var(1, k), lane)] = var;
      }
      if (h.product == path_product::lookback && h.continuous) paths[row_index(j, rows, r.u(k), lane)] = u;
    };
    // Only continuous lookbacks draw differently (a third normal a step).
    if (h.product == path_product::lookback) for_heston_step_normals<path_product::lookback>(h, rng, step);
    else for_heston_step_normals<path_product::european>(h, rng, step);
  }
};

template <typename Real, typename Stream>
__global__ void __launch_bounds__(policy::threads_per_block)
    heston_observations_kernel(const basic_heston_trade<Real>* __restrict__ trades, int num_trades,
                               const basic_heston_step<Real>* __restrict__ grid, block_range blocks,
                               Real* __restrict__ paths, int rows)
{
  detail::for_canonical_blocks(trades, num_trades, blocks,
                               observation_lane<Real, Stream>{grid, paths, rows, blocks.begin});
}

template <typename Real>
__global__ void __launch_bounds__(policy::threads_per_block)
    heston_payoffs_kernel(const basic_heston_trade<Real>* __restrict__ trades, int num_trades,
                          const basic_heston_step<Real>* __restrict__ grid, block_range blocks,
                          const Real* __restrict__ paths, int rows, Real* __restrict__ payoffs)
{
  using step = basic_heston_step<Real>;
  using lane = two_phase::replay_lane<two_phase::stored_replay<step>, step, Real>;
  detail::for_canonical_blocks(trades, num_trades, blocks, lane{grid, paths, rows, payoffs, blocks.begin});
}

}  // namespace

template <typename Real>
void launch_heston_two_phase(const heston_ref<Real>& f, block_range blocks, const two_phase_scratch<Real>& s,
                             moments* partials, launch_target at)
{
  if (f.num_trades == 0) return;
  detail::with_normal_stream<rng::device_sobol_stream<3, Real>>(at, [&](auto stream) {
    detail::launch_persistent(heston_observations_kernel<Real, typename decltype(stream)::type>,
                              "heston_observations_kernel", blocks.size(), at.grid_blocks, at.stream, f.trades,
                              f.num_trades, f.tables.steps, blocks, s.paths, s.rows);
  });
  detail::launch_persistent(heston_payoffs_kernel<Real>, "heston_payoffs_kernel", blocks.size(), at.grid_blocks,
                            at.stream, f.trades, f.num_trades, f.tables.steps, blocks, s.paths, s.rows, s.payoffs);
  two_phase::launch_sample_blocks(f, blocks, s.payoffs, partials, at);
}

template void launch_heston_two_phase(const heston_ref<float>&, block_range, const two_phase_scratch<float>&, moments*,
                                      launch_target);
template void launch_heston_two_phase(const heston_ref<double>&, block_range, const two_phase_scratch<double>&,
                                      moments*, launch_target);

}  // namespace mcprice::kernels
