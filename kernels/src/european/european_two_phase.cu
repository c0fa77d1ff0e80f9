#include "mcprice/kernels/launch/canonical_blocks.cuh"
#include "mcprice/kernels/launch/european.hpp"
#include "mcprice/kernels/launch/kernel_module.cuh"
#include "mcprice/kernels/launch/stream_choice.cuh"

namespace mcprice::kernels {

MCPRICE_KERNEL_MODULE(kernel_group::two_phase)
namespace {

using policy = tuning::european_policy;
constexpr int per = european_samples_per_group;
constexpr int obs_stride = max_observations_per_sample;

// Slot of a sample in a job's scratch: its block within the job, then its place in the block.
__device__ __forceinline__ std::int64_t slot(std::int64_t block_in_job, std::int64_t group_in_block, int j)
{
  return block_in_job * payoff_floats_per_block + group_in_block * per + j;
}

// Stream: the normal stream of the fused kernel (stream_choice.cuh), so both routes draw the
// same numbers.
template <typename Stream>
struct path_lane {
  float* paths;
  std::int64_t block_begin;

  template <bool Antithetic>
  __device__ __forceinline__ void store(const european_gbm_trade& t, std::int64_t block_in_trade, std::int64_t b,
                                        int lane) const
  {
    for_lane_groups(t.samples, block_in_trade, lane, [&](std::int64_t group, int count) {
      Stream rng(t.key, static_cast<std::uint64_t>(group));
      auto const z = rng.next4();
      float const zs[4] = {z.x, z.y, z.z, z.w};
      std::int64_t const group_in_block =
          group - block_in_trade * layout::groups_per_block(european_normals_per_sample);
      for (int j = 0; j < count; ++j)
        observe<Antithetic>(t, zs[j], paths + slot(b - block_begin, group_in_block, j) * obs_stride);
    });
  }

  __device__ __forceinline__ void operator()(const european_gbm_trade& t, std::int64_t block_in_trade, std::int64_t b,
                                             int lane) const
  {
    if (t.antithetic) store<true>(t, block_in_trade, b, lane);
    else store<false>(t, block_in_trade, b, lane);
  }
};

struct payoff_lane {
  const float* payoffs;
  std::int64_t block_begin;

  __device__ __forceinline__ moments operator()(const european_gbm_trade& t, std::int64_t block_in_trade,
                                                std::int64_t b, int lane) const
  {
    return lane_moments(t.samples, block_in_trade, lane, [&](std::int64_t group, int count, float* x) {
      std::int64_t const group_in_block =
          group - block_in_trade * layout::groups_per_block(european_normals_per_sample);
      for (int j = 0; j < per; ++j) x[j] = j < count ? payoffs[slot(b - block_begin, group_in_block, j)] : 0.0F;
    });
  }
};

// Phase 1 walks the blocks like the fused kernel (same groups, same subsequences) but stores.
template <typename Stream>
__global__ void __launch_bounds__(policy::threads_per_block)
    european_paths_kernel(const european_gbm_trade* __restrict__ trades, int num_trades, block_range blocks,
                          float* __restrict__ paths)
{
  detail::for_canonical_blocks(trades, num_trades, blocks, path_lane<Stream>{paths, blocks.begin});
}

template <terminal_payoff Kind, bool Antithetic>
__device__ __forceinline__ float payoff_of_slot(const european_gbm_trade& t, const float* obs)
{
  return sample_payoff<Kind, Antithetic>(t, obs);
}

// Phase 2: one thread per sample slot.
__global__ void european_payoffs_kernel(const european_gbm_trade* __restrict__ trades, int num_trades,
                                        block_range blocks, const float* __restrict__ paths,
                                        float* __restrict__ payoffs)
{
  std::int64_t const slots = blocks.size() * payoff_floats_per_block;
  for (std::int64_t s = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; s < slots;
       s += std::int64_t{gridDim.x} * blockDim.x) {
    std::int64_t const b = blocks.begin + s / payoff_floats_per_block;
    european_gbm_trade const& t = trades[detail::trade_of_block_by_thread(trades, num_trades, b)];
    std::int64_t const sample = (b - t.first_block) * payoff_floats_per_block + s % payoff_floats_per_block;
    float value = 0.0F;
    if (sample < t.samples) {
      const float* obs = paths + s * obs_stride;
      using K = terminal_payoff;
      bool const a = t.antithetic != 0;
      switch (t.payoff.kind) {
        case K::call:
          value = a ? payoff_of_slot<K::call, true>(t, obs) : payoff_of_slot<K::call, false>(t, obs);
          break;
        case K::put:
          value = a ? payoff_of_slot<K::put, true>(t, obs) : payoff_of_slot<K::put, false>(t, obs);
          break;
        case K::cash_digital_call:
          value = a ? payoff_of_slot<K::cash_digital_call, true>(t, obs)
                    : payoff_of_slot<K::cash_digital_call, false>(t, obs);
          break;
        case K::cash_digital_put:
          value = a ? payoff_of_slot<K::cash_digital_put, true>(t, obs)
                    : payoff_of_slot<K::cash_digital_put, false>(t, obs);
          break;
        case K::asset_digital_call:
          value = a ? payoff_of_slot<K::asset_digital_call, true>(t, obs)
                    : payoff_of_slot<K::asset_digital_call, false>(t, obs);
          break;
        case K::asset_digital_put:
          value = a ? payoff_of_slot<K::asset_digital_put, true>(t, obs)
                    : payoff_of_slot<K::asset_digital_put, false>(t, obs);
          break;
      }
    }
    payoffs[s] = value;
  }
}

// Phase 3: the canonical-block moments from the stored sample values.
__global__ void __launch_bounds__(policy::threads_per_block)
    payoff_blocks_kernel(const european_gbm_trade* __restrict__ trades, int num_trades, block_range blocks,
                         const float* __restrict__ payoffs, moments* __restrict__ block_moments)
{
  detail::reduce_canonical_blocks(trades, num_trades, blocks, block_moments, payoff_lane{payoffs, blocks.begin});
}

}  // namespace

void launch_european_two_phase(const european_ref& f, block_range blocks, const two_phase_scratch<float>& s,
                               moments* partials, launch_target at)
{
  if (f.num_trades == 0 || blocks.size() <= 0) return;
  detail::with_normal_stream<rng::device_sobol_stream<0>>(at, [&](auto stream) {
    detail::launch_persistent(european_paths_kernel<typename decltype(stream)::type>, "european_paths_kernel",
                              blocks.size(), at.grid_blocks, at.stream, f.trades, f.num_trades, blocks, s.paths);
  });
  // Phase 2 takes one thread a sample slot, on a grid of its own.
  std::int64_t const slots = blocks.size() * payoff_floats_per_block;
  int const threads = 256;
  auto const grid = static_cast<int>(std::min<std::int64_t>((slots + threads - 1) / threads, 65535));
  european_payoffs_kernel<<<grid, threads, 0, at.stream>>>(f.trades, f.num_trades, blocks, s.paths, s.payoffs);
  MCPRICE_CHECK_LAUNCH("european_payoffs_kernel");
  detail::launch_persistent(payoff_blocks_kernel, "payoff_blocks_kernel", blocks.size(), at.grid_blocks, at.stream,
                            f.trades, f.num_trades, blocks, s.payoffs, partials);
}

}  // namespace mcprice::kernels
