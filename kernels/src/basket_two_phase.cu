#include "mcprice/kernels/basket_two_phase.hpp"
#include "mcprice/kernels/device_normal_stream.cuh"
#include "mcprice/kernels/two_phase_rows.cuh"

namespace mcprice::kernels {
namespace {

using policy = tuning::european_policy;
using two_phase::lanes;
using two_phase::row_index;
using two_phase::sample_of;

// Rows of a sample: the terminal spots of path a, asset by asset, then of path b.
struct observation_lane {
  const basket_asset* assets;
  const float* factors;
  float* paths;
  int rows;
  std::int64_t block_begin;

  __device__ __forceinline__ void operator()(const basket_gbm_trade& t, std::int64_t block_in_trade, std::int64_t b,
                                             int lane) const
  {
    std::int64_t const sample = sample_of(t, block_in_trade, lane);
    if (sample < 0) return;
    std::int64_t const j = b - block_begin;
    rng::device_normal_stream rng(t.key, static_cast<std::uint64_t>(sample));
    float z[max_basket_assets];
    basket_normals(t, rng, z);
    const basket_asset* a = assets + t.first_asset;
    const float* factor = factors + t.first_factor;
    for (int i = 0; i < t.assets; ++i) {
      paths[row_index(j, rows, i, lane)] = basket_terminal_spot(t, a, factor, z, 1.0F, i);
      if (t.antithetic) paths[row_index(j, rows, t.assets + i, lane)] = basket_terminal_spot(t, a, factor, z, -1.0F, i);
    }
  }
};

struct payoff_lane {
  const basket_asset* assets;
  const float* paths;
  int rows;
  float* payoffs;
  std::int64_t block_begin;

  __device__ __forceinline__ void operator()(const basket_gbm_trade& t, std::int64_t block_in_trade, std::int64_t b,
                                             int lane) const
  {
    if (sample_of(t, block_in_trade, lane) < 0) return;
    std::int64_t const j = b - block_begin;
    const basket_asset* a = assets + t.first_asset;
    float const up = basket_payoff(t, a, [&](int i) { return paths[row_index(j, rows, i, lane)]; });
    payoffs[j * lanes + lane] =
        t.antithetic ? 0.5F * (up + basket_payoff(t, a, [&](int i) { return paths[row_index(j, rows, t.assets + i, lane)]; }))
                     : up;
  }
};

__global__ void __launch_bounds__(policy::threads_per_block)
basket_observations_kernel(const basket_gbm_trade* __restrict__ trades, int num_trades,
                           const basket_asset* __restrict__ assets, const float* __restrict__ factors,
                           std::int64_t block_begin, std::int64_t block_end, float* __restrict__ paths, int rows)
{
  detail::for_canonical_blocks(trades, num_trades, block_begin, block_end,
                               observation_lane{assets, factors, paths, rows, block_begin});
}

__global__ void __launch_bounds__(policy::threads_per_block)
basket_payoffs_kernel(const basket_gbm_trade* __restrict__ trades, int num_trades, const basket_asset* __restrict__ assets,
                      std::int64_t block_begin, std::int64_t block_end, const float* __restrict__ paths, int rows,
                      float* __restrict__ payoffs)
{
  detail::for_canonical_blocks(trades, num_trades, block_begin, block_end,
                               payoff_lane{assets, paths, rows, payoffs, block_begin});
}

__global__ void __launch_bounds__(policy::threads_per_block)
basket_sample_blocks_kernel(const basket_gbm_trade* __restrict__ trades, int num_trades, std::int64_t block_begin,
                            std::int64_t block_end, const float* __restrict__ payoffs, moments* __restrict__ partials)
{
  detail::reduce_canonical_blocks(trades, num_trades, block_begin, block_end, partials,
                                  two_phase::sample_lane<>{payoffs, block_begin});
}

}  // namespace

void launch_basket_observations(const basket_gbm_trade* trades, int num_trades, const basket_asset* assets,
                                const float* factors, std::int64_t block_begin, std::int64_t block_end, float* paths,
                                int rows, int grid_blocks, cudaStream_t stream)
{
  if (num_trades == 0) return;
  detail::launch_persistent(basket_observations_kernel, "basket_observations_kernel", block_end - block_begin,
                            grid_blocks, stream, trades, num_trades, assets, factors, block_begin, block_end, paths,
                            rows);
}

void launch_basket_payoffs(const basket_gbm_trade* trades, int num_trades, const basket_asset* assets,
                           std::int64_t block_begin, std::int64_t block_end, const float* paths, int rows,
                           float* payoffs, int grid_blocks, cudaStream_t stream)
{
  if (num_trades == 0) return;
  detail::launch_persistent(basket_payoffs_kernel, "basket_payoffs_kernel", block_end - block_begin, grid_blocks,
                            stream, trades, num_trades, assets, block_begin, block_end, paths, rows, payoffs);
}

void launch_basket_sample_blocks(const basket_gbm_trade* trades, int num_trades, std::int64_t block_begin,
                                 std::int64_t block_end, const float* payoffs, moments* partials, int grid_blocks,
                                 cudaStream_t stream)
{
  if (num_trades == 0) return;
  detail::launch_persistent(basket_sample_blocks_kernel, "basket_sample_blocks_kernel", block_end - block_begin,
                            grid_blocks, stream, trades, num_trades, block_begin, block_end, payoffs, partials);
}

}  // namespace mcprice::kernels
