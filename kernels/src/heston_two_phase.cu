#include "mcprice/kernels/device_normal_stream.cuh"
#include "mcprice/kernels/heston_two_phase.hpp"
#include "mcprice/kernels/two_phase_rows.cuh"

namespace mcprice::kernels {
namespace {

using policy = tuning::european_policy;
using two_phase::lanes;
using two_phase::row_index;
using two_phase::sample_of;

__device__ __forceinline__ two_phase::sample_rows rows_of(const heston_trade& t)
{
  return {t.steps, t.antithetic ? 2 : 1, true};
}

struct observation_lane {
  const heston_step* grid;
  float* paths;
  int rows;
  std::int64_t block_begin;

  __device__ __forceinline__ void operator()(const heston_trade& h, std::int64_t block_in_trade, std::int64_t b,
                                             int lane) const
  {
    std::int64_t const sample = sample_of(h, block_in_trade, lane);
    if (sample < 0) return;
    std::int64_t const j = b - block_begin;
    two_phase::sample_rows const r = rows_of(h);
    rng::device_normal_stream rng(h.key, static_cast<std::uint64_t>(sample));
    const heston_step* steps = grid + h.first_step;
    float va = h.v0;
    float vb = h.v0;
    float xa = 0.0F;
    float xb = 0.0F;
    // The steps are formed as heston_sample forms them.
    auto const step = [&](int k, const qe_paired_draw& draw, float z_x, float u) {
      heston_step const s = steps[k];
      float dx = 0.0F;
      float var = 0.0F;
      heston_qe_step(h, s, va, draw, z_x, dx, var);
      xa = xa + dx;
      paths[row_index(j, rows, r.x(0, k), lane)] = xa;
      paths[row_index(j, rows, r.var(0, k), lane)] = var;
      if (h.antithetic) {
        heston_qe_step(h, s, vb, draw.antithetic(), -z_x, dx, var);
        xb = xb + dx;
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

__global__ void __launch_bounds__(policy::threads_per_block)
heston_observations_kernel(const heston_trade* __restrict__ trades, int num_trades, const heston_step* __restrict__ grid,
                           std::int64_t block_begin, std::int64_t block_end, float* __restrict__ paths, int rows)
{
  detail::for_canonical_blocks(trades, num_trades, block_begin, block_end,
                               observation_lane{grid, paths, rows, block_begin});
}

__global__ void __launch_bounds__(policy::threads_per_block)
heston_payoffs_kernel(const heston_trade* __restrict__ trades, int num_trades, const heston_step* __restrict__ grid,
                      std::int64_t block_begin, std::int64_t block_end, const float* __restrict__ paths, int rows,
                      float* __restrict__ payoffs)
{
  using lane = two_phase::replay_lane<two_phase::stored_replay<heston_step>, heston_step>;
  detail::for_canonical_blocks(trades, num_trades, block_begin, block_end, lane{grid, paths, rows, payoffs, block_begin});
}

__global__ void __launch_bounds__(policy::threads_per_block)
heston_sample_blocks_kernel(const heston_trade* __restrict__ trades, int num_trades, std::int64_t block_begin,
                            std::int64_t block_end, const float* __restrict__ payoffs, moments* __restrict__ partials)
{
  detail::reduce_canonical_blocks(trades, num_trades, block_begin, block_end, partials,
                                  two_phase::sample_lane{payoffs, block_begin});
}

}  // namespace

void launch_heston_observations(const heston_trade* trades, int num_trades, const heston_step* steps,
                                std::int64_t block_begin, std::int64_t block_end, float* paths, int rows,
                                int grid_blocks, cudaStream_t stream)
{
  if (num_trades == 0) return;
  detail::launch_persistent(heston_observations_kernel, "heston_observations_kernel", block_end - block_begin,
                            grid_blocks, stream, trades, num_trades, steps, block_begin, block_end, paths, rows);
}

void launch_heston_payoffs(const heston_trade* trades, int num_trades, const heston_step* steps,
                           std::int64_t block_begin, std::int64_t block_end, const float* paths, int rows,
                           float* payoffs, int grid_blocks, cudaStream_t stream)
{
  if (num_trades == 0) return;
  detail::launch_persistent(heston_payoffs_kernel, "heston_payoffs_kernel", block_end - block_begin, grid_blocks,
                            stream, trades, num_trades, steps, block_begin, block_end, paths, rows, payoffs);
}

void launch_heston_sample_blocks(const heston_trade* trades, int num_trades, std::int64_t block_begin,
                                 std::int64_t block_end, const float* payoffs, moments* partials, int grid_blocks,
                                 cudaStream_t stream)
{
  if (num_trades == 0) return;
  detail::launch_persistent(heston_sample_blocks_kernel, "heston_sample_blocks_kernel", block_end - block_begin,
                            grid_blocks, stream, trades, num_trades, block_begin, block_end, payoffs, partials);
}

}  // namespace mcprice::kernels
