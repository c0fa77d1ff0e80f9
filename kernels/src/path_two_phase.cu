#include "mcprice/kernels/device_normal_stream.cuh"
#include "mcprice/kernels/path_two_phase.hpp"
#include "mcprice/kernels/two_phase_rows.cuh"

namespace mcprice::kernels {
namespace {

using policy = tuning::european_policy;
using two_phase::lanes;
using two_phase::row_index;
using two_phase::sample_of;

struct observation_lane {
  const path_step* grid;
  float* paths;
  int rows;
  std::int64_t block_begin;

  __device__ __forceinline__ void operator()(const path_gbm_trade& t, std::int64_t block_in_trade, std::int64_t b,
                                             int lane) const
  {
    std::int64_t const sample = sample_of(t, block_in_trade, lane);
    if (sample < 0) return;
    std::int64_t const j = b - block_begin;
    rng::device_normal_stream rng(t.key, static_cast<std::uint64_t>(sample));
    const path_step* steps = grid + t.first_step;
    float xa = 0.0F;
    float xb = 0.0F;
    // The increments are formed as path_state::advance forms them.
    auto const store = [&](int k, float z) {
      path_step const s = steps[k];
      xa = xa + fmaf(s.vol, z, s.drift);
      paths[row_index(j, rows, k, lane)] = xa;
      if (t.antithetic) {
        xb = xb + fmaf(s.vol, -z, s.drift);
        paths[row_index(j, rows, t.steps + k, lane)] = xb;
      }
    };
    if (t.product == path_product::lookback && t.continuous) {
      two_phase::sample_rows const r{t.steps, t.antithetic ? 2 : 1, false};
      for_step_normal_pairs(rng, t.steps, [&](int k, float z, float u) {
        store(k, z);
        paths[row_index(j, rows, r.u(k), lane)] = u;
      });
    } else {
      for_step_normals(rng, t.steps, store);
    }
  }
};

__global__ void __launch_bounds__(policy::threads_per_block)
path_observations_kernel(const path_gbm_trade* __restrict__ trades, int num_trades, const path_step* __restrict__ grid,
                         std::int64_t block_begin, std::int64_t block_end, float* __restrict__ paths, int rows)
{
  detail::for_canonical_blocks(trades, num_trades, block_begin, block_end,
                               observation_lane{grid, paths, rows, block_begin});
}

__global__ void __launch_bounds__(policy::threads_per_block)
path_payoffs_kernel(const path_gbm_trade* __restrict__ trades, int num_trades, const path_step* __restrict__ grid,
                    std::int64_t block_begin, std::int64_t block_end, const float* __restrict__ paths, int rows,
                    float* __restrict__ payoffs)
{
  using lane = two_phase::replay_lane<two_phase::gbm_replay, path_step>;
  detail::for_canonical_blocks(trades, num_trades, block_begin, block_end, lane{grid, paths, rows, payoffs, block_begin});
}

__global__ void __launch_bounds__(policy::threads_per_block)
path_sample_blocks_kernel(const path_gbm_trade* __restrict__ trades, int num_trades, std::int64_t block_begin,
                          std::int64_t block_end, const float* __restrict__ payoffs, moments* __restrict__ partials)
{
  detail::reduce_canonical_blocks(trades, num_trades, block_begin, block_end, partials,
                                  two_phase::sample_lane{payoffs, block_begin});
}

}  // namespace

void launch_path_observations(const path_gbm_trade* trades, int num_trades, const path_step* grid,
                              std::int64_t block_begin, std::int64_t block_end, float* paths, int rows, int grid_blocks,
                              cudaStream_t stream)
{
  if (num_trades == 0) return;
  detail::launch_persistent(path_observations_kernel, "path_observations_kernel", block_end - block_begin,
                            grid_blocks, stream, trades, num_trades, grid, block_begin, block_end, paths, rows);
}

void launch_path_payoffs(const path_gbm_trade* trades, int num_trades, const path_step* grid, std::int64_t block_begin,
                         std::int64_t block_end, const float* paths, int rows, float* payoffs, int grid_blocks,
                         cudaStream_t stream)
{
  if (num_trades == 0) return;
  detail::launch_persistent(path_payoffs_kernel, "path_payoffs_kernel", block_end - block_begin, grid_blocks, stream,
                            trades, num_trades, grid, block_begin, block_end, paths, rows, payoffs);
}

void launch_path_sample_blocks(const path_gbm_trade* trades, int num_trades, std::int64_t block_begin,
                               std::int64_t block_end, const float* payoffs, moments* partials, int grid_blocks,
                               cudaStream_t stream)
{
  if (num_trades == 0) return;
  detail::launch_persistent(path_sample_blocks_kernel, "path_sample_blocks_kernel", block_end - block_begin,
                            grid_blocks, stream, trades, num_trades, block_begin, block_end, payoffs, partials);
}

}  // namespace mcprice::kernels
