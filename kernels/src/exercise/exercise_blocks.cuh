#pragma once
// Early exercise's pricing and Greek-combination kernels, included by early_exercise_kernel.cu
// (Philox; the entry points, with calibration and regressions, which draw Philox under either
// generator) and early_exercise_kernel_quasi.cu (Sobol points): each a module of its own
// (kernel_modules.hpp).
#include "mcprice/kernels/launch/canonical_blocks.cuh"
#include "mcprice/kernels/launch/exercise.hpp"
#include "mcprice/kernels/launch/stream_choice.cuh"

namespace mcprice::kernels {
namespace {

using policy = tuning::european_policy;
constexpr int warps_per_block = layout::lanes_per_block / layout::lanes_per_partial;
static_assert(regression_doubles <= policy::threads_per_block);

// The moments of a lane of a pricing trade, or of a Greek combination, under the tables.
template <typename Stream>
__device__ __forceinline__ moments lane_moments(const exercise_trade& t, const exercise_tables& tables,
                                                std::int64_t block, int lane)
{
  return exercise_lane<Stream>(t, tables, block, lane);
}

template <typename Stream, int Assets>
__device__ __forceinline__ moments lane_moments(const exercise_combination& c, const exercise_tables& tables,
                                                std::int64_t block, int lane)
{
  return combination_lane<Stream, Assets>(c, tables, block, lane);
}

template <typename Stream>
struct exercise_lane_fn {
  exercise_tables tables;
  __device__ __forceinline__ moments operator()(const exercise_trade& r, std::int64_t block_in_record, std::int64_t,
                                                int lane) const
  {
    return lane_moments<Stream>(r, tables, block_in_record, lane);
  }
};

// Pricing trades: canonical blocks reduced as every family's. Registers capped for the tuned
// blocks an SM (tuning.hpp).
template <typename Stream>
__global__ void __launch_bounds__(tuning::exercise_policy::threads_per_block,
                                  tuning::exercise_policy::min_blocks_per_sm)
    exercise_blocks_kernel(const exercise_trade* __restrict__ records, int num, exercise_tables tables,
                           block_range blocks, moments* __restrict__ block_moments)
{
  detail::reduce_canonical_blocks(records, num, blocks, block_moments, exercise_lane_fn<Stream>{tables});
}

// Whether the combination kernel compiled for `Assets` (0: the counts without a kernel of their
// own) takes a combination's units.
template <int Assets>
__device__ __forceinline__ bool takes(const exercise_combination& c, const exercise_tables& tables)
{
  int const n = tables.scenarios[c.scenario[0]].assets;
  return Assets > 0 ? n == Assets : !tuning::exercise_sized(n);
}

// The units of a combination group's block `j` (within each member) that fall in the job's
// blocks, computed from one walk per lane and stored by the group's last member in range
// (the units are handed out last first: its unit comes before the others'); the other members'
// units of that block return at once. Each member's per-path value and warp
// total are those of its own unit (combination_lane): the same bits.
template <typename Stream, int Assets>
__device__ __forceinline__ void group_units(const exercise_combination* __restrict__ records,
                                            const exercise_tables& tables, int self, std::int64_t j, int warp, int lane,
                                            block_range blocks, moments* __restrict__ partials)
{
  const exercise_walk_group& g = tables.groups[records[self].group];
  auto const in_range = [&](int m) {
    std::int64_t const b = records[g.member[m]].first_block + j;
    return b >= blocks.begin && b < blocks.end;
  };
  int owner = g.members - 1;
  while (!in_range(owner)) --owner;
  if (g.member[owner] != self) return;
  std::int64_t const samples = records[self].samples;
  std::int64_t const sample = layout::group_index(j, 0, lane, exercise_normals_per_sample);
  float value[max_group_legs];
  if (sample < samples) {
    with_trade_sized_for<Assets>(tables.scenarios[g.scenario[0]], [&](const auto& first) {
      group_leg_values<Stream>(first, g, tables, static_cast<std::uint64_t>(sample), value);
    });
  }
  for (int m = 0; m <= owner; ++m) {
    if (!in_range(m)) continue;
    exercise_combination const c = records[g.member[m]];
    moments mine{};
    if (sample < samples) mine.add_group(combined_value(c, value, c.group_leg), 0.0F, 1);
    moments const total = detail::warp_sum(mine);
    if (lane % layout::lanes_per_partial == 0) {
      partials[(c.first_block + j - blocks.begin) * layout::partials_per_block + warp] = total;
    }
  }
}

// Greek combinations: the canonical units of every family (reduce_canonical_units), with the
// grouped combinations' units computed by group_units. Units differ in cost far more than in the
// other families (a group's unit walks for all its members, the others' return at once; early
// exercise ends walks at different dates), so each warp takes its next unit from a counter
// rather than a fixed stride: a few units a warp (25,000 paths a trade) left the fixed stride's
// slowest warp far behind. The counter hands them out last unit first: a trade's Greeks end
// with those whose legs each walk alone (correlation vega, rho, theta: two walks a unit, the
// dearest), and a kernel that took them last ended on them. Where a unit runs never changes
// what it stores. Compiled per kind of trade (takes<Assets>); the others' units return at once.
// Stream: the pricing pass's normal stream (Philox, or the Sobol stream of --rng sobol).
template <int Assets, typename Stream>
__global__ void __launch_bounds__(tuning::combination_policy<Assets>::threads_per_block,
                                  tuning::combination_policy<Assets>::min_blocks_per_sm)
    combination_blocks_kernel(const exercise_combination* __restrict__ records, int num, exercise_tables tables,
                              block_range blocks, moments* __restrict__ partials,
                              unsigned long long* __restrict__ next_unit)
{
  constexpr int per_block = layout::partials_per_block;
  int const lane_in_warp = static_cast<int>(threadIdx.x) % layout::lanes_per_partial;
  auto const units = static_cast<unsigned long long>(blocks.size() * per_block);
  for (;;) {
    // Asked to stop, a warp takes no more units (they stay undone: the host cancels the request).
    unsigned long long u = units;
    if (lane_in_warp == 0 && !detail::stop_asked(blocks.stop)) u = atomicAdd(next_unit, 1ULL);
    u = __shfl_sync(0xffffffffU, u, 0);
    if (u >= units) break;
    auto const unit = static_cast<std::int64_t>(units - 1 - u);
    std::int64_t const b = blocks.begin + unit / per_block;
    int const warp = static_cast<int>(unit % per_block);
    int const lane = warp * layout::lanes_per_partial + lane_in_warp;
    int const index = detail::trade_of_block(records, num, b);
    if (!takes<Assets>(records[index], tables)) continue;
    std::int64_t const j = b - records[index].first_block;
    if (records[index].group >= 0) {
      group_units<Stream, Assets>(records, tables, index, j, warp, lane, blocks, partials);
      continue;
    }
    moments const total = detail::warp_sum(lane_moments<Stream, Assets>(records[index], tables, j, lane));
    if (lane_in_warp == 0) partials[unit] = total;
  }
}

// launch(stream_tag<S>{}) with S the walks' normal stream, Base (Philox normals or Sobol points),
// as a jumpless_stream where no trade of the tables jumps.
template <typename Base, typename Launch>
void with_walk_stream(const exercise_tables& tables, Launch&& launch)
{
  if (tables.jump_counts == nullptr) launch(detail::stream_tag<jumpless_stream<Base>>{});
  else launch(detail::stream_tag<Base>{});
}

template <typename Base>
void launch_exercise_price_blocks_with(const exercise_ref& f, block_range blocks, moments* partials, launch_target at)
{
  with_walk_stream<Base>(f.tables, [&](auto stream) {
    detail::launch_persistent(exercise_blocks_kernel<typename decltype(stream)::type>,
                              "exercise_blocks_kernel (prices)", blocks.size(), at.grid_blocks, at.stream, f.trades,
                              f.num_trades, f.tables, blocks, partials);
  });
}

template <typename Base, int Assets>
void launch_combination_kind(const combination_ref& f, block_range blocks, moments* partials,
                             unsigned long long* unit_counter, launch_target at)
{
  with_walk_stream<Base>(f.tables, [&](auto stream) {
    detail::launch_persistent(combination_blocks_kernel<Assets, typename decltype(stream)::type>,
                              "combination_blocks_kernel (Greeks)", blocks.size(), at.grid_blocks, at.stream, f.trades,
                              f.num_trades, f.tables, blocks, partials, unit_counter);
  });
}

template <typename Base, int... N>
void launch_sized_combinations(tuning::asset_counts<N...>, std::uint32_t asset_counts, const combination_ref& f,
                               block_range blocks, moments* partials, unsigned long long* unit_counters,
                               launch_target at)
{
  int k = 0;
  (void)((asset_counts >> N & 1U ? launch_combination_kind<Base, N>(f, blocks, partials, unit_counters + k, at)
                                 : void(),
          ++k),
         ...);
}

// Every kind of combination the request's asset counts need, with the walks of Base.
template <typename Base>
void launch_exercise_combinations_with(const combination_ref& f, block_range blocks, moments* partials,
                                       std::uint32_t asset_counts, unsigned long long* unit_counters,
                                       launch_target at)
{
  launch_sized_combinations<Base>(tuning::exercise_sized_assets{}, asset_counts, f, blocks, partials, unit_counters,
                                  at);
  if ((asset_counts & ~tuning::exercise_sized_assets::mask) != 0) {
    launch_combination_kind<Base, 0>(f, blocks, partials, unit_counters + tuning::exercise_sized_kinds, at);
  }
}

// Sobol paths: up to two bridged normals an asset a step (Heston's variances, then log spots).
using exercise_sobol_stream = rng::device_sobol_stream<2 * max_exercise_assets>;

}  // namespace

namespace detail {
// early_exercise_kernel_quasi.cu.
void launch_exercise_price_blocks_quasi(const exercise_ref& f, block_range blocks, moments* partials,
                                        launch_target at);
void launch_exercise_combinations_quasi(const combination_ref& f, block_range blocks, moments* partials,
                                        std::uint32_t asset_counts, unsigned long long* unit_counters,
                                        launch_target at);
}  // namespace detail

}  // namespace mcprice::kernels
