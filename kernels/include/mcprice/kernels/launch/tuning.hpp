#pragma once
// Launch shapes in one table (the CUB convention), not literals spread over kernels. Block
// size is pinned to the canonical block: the in-block reduction tree is part of the result's
// definition. The grid is the resident block count (a persistent grid); its size only
// changes scheduling, never the numbers.
#include "mcprice/kernels/layout/canonical_layout.hpp"

#include <type_traits>

#ifndef MCPRICE_EUROPEAN_MIN_BLOCKS_PER_SM
#define MCPRICE_EUROPEAN_MIN_BLOCKS_PER_SM 8
#endif

// The fused European kernel at 6 blocks an SM (40 registers a thread, 48 of 64 warps) ran 3.4%
// faster than at 8 (32 registers, full occupancy) on an H200: 3.19 against 3.30 ms for the
// MonteCarloMultiGPU book (docs/benchmarks.md). It is issue-bound, and the registers buy more
// independent instructions per warp than the lost warps hid.
#ifndef MCPRICE_EUROPEAN_FUSED_MIN_BLOCKS_PER_SM
#define MCPRICE_EUROPEAN_FUSED_MIN_BLOCKS_PER_SM 6
#endif

// The Greek kernel's nine extra double sums a lane need 76 registers: 3 blocks an SM hold them
// without spilling (4 would cap registers at 64 and spill about 120 bytes a thread).
#ifndef MCPRICE_GREEK_MIN_BLOCKS_PER_SM
#define MCPRICE_GREEK_MIN_BLOCKS_PER_SM 3
#endif

// The Heston kernels (heston_kernel.cu): blocks an SM their registers are capped for. The
// Europeans kernel (conditional Monte Carlo since 2026-12-01) needs 63 registers at 4 blocks an
// SM, without spills, since its QE step selects between the branches (2026-12-02; 56 before).
// With the branchy step, capped at 5 (48, 24 bytes spilled) it ran within noise of 4 on an H200
// (220-222 against 216-220 G path-steps/s, later 211-215 against 206-212), at 3 (72-79) 2-5%
// slower; not measured again since. The full-path Europeans kernel before it: at 4 (64 registers) 156-160, at 3 (80)
// 153-157, at 2 (88) 131-133. The kernel for every product, uncapped, took 98 registers (2 blocks an SM):
// 16 Heston down-and-out calls (252 steps, 2^22 paths each) in 0.196-0.199 s; capped at 3
// blocks (80 registers, a little spilling) 0.171-0.177 s, at 4 (64) 0.171-0.175 s, the same bits
// (docs/benchmarks.md).
#ifndef MCPRICE_HESTON_EUROPEAN_MIN_BLOCKS_PER_SM
#define MCPRICE_HESTON_EUROPEAN_MIN_BLOCKS_PER_SM 4
#endif
#ifndef MCPRICE_HESTON_MIN_BLOCKS_PER_SM
#define MCPRICE_HESTON_MIN_BLOCKS_PER_SM 3
#endif

// The early-exercise pricing and Greek-combination kernel (early_exercise_kernel.cu): uncapped it
// took 96 registers (2 blocks an SM); capped at 3 blocks (80 registers, no spills) the
// STAC-A2-style workloads ran 65.8-66.3 ms (small) and 3.95 s (large) against 72.8-77.3 ms and
// 4.19 s uncapped in the same call on an H200, at 4 blocks (64 registers, 156 bytes spilled)
// 66.1-69.6 ms and 3.94 s; the same result digests in all (docs/benchmarks.md).
#ifndef MCPRICE_EXERCISE_MIN_BLOCKS_PER_SM
#define MCPRICE_EXERCISE_MIN_BLOCKS_PER_SM 3
#endif

// Greeks of early-exercise trades: the spot legs one walk evaluates for a group of combinations
// (early_exercise.hpp, exercise_walk_group). Each walk saved is a path's normals and steps, but a
// walk serves its legs one after another in one thread, so the groups' walks must still bring
// warps enough to fill the GPU: a trade's groups hold as many legs as leave their walks about
// this many warps (the Greek kernel's resident warps on the H200: 132 SMs x 3 blocks x 8 warps),
// between 8 and 64 legs. Measured (docs/benchmarks.md): 5 assets x 25,000 paths best at 12-20
// legs (the rule: 13), 10 assets x 100,000 paths best at 64 (the rule: 64).
#ifndef MCPRICE_EXERCISE_WALK_WARPS
#define MCPRICE_EXERCISE_WALK_WARPS 3168
#endif

// The same for trades whose Greeks run a sized kernel (below; 132 SMs x 2 blocks x 8 warps
// resident). Measured (docs/benchmarks.md): 5 assets x 25,000 paths.
#ifndef MCPRICE_EXERCISE_SIZED_WALK_WARPS
#define MCPRICE_EXERCISE_SIZED_WALK_WARPS 2112
#endif

// Asset counts whose early-exercise Greek combinations run a kernel compiled for that count
// (early_exercise_kernel.cu): the path's state, correlation and loops over assets then live in
// registers, unrolled, instead of local memory and loops counted at run time; the other counts
// share one kernel. Each is a kernel of its own so that its registers are its own (sizing inside
// the shared kernel slowed the other counts). Measured in docs/benchmarks.md.
#ifndef MCPRICE_EXERCISE_SIZED_ASSETS
#define MCPRICE_EXERCISE_SIZED_ASSETS 5
#endif

// The sized Greek-combination kernels' blocks an SM (their registers' cap).
#ifndef MCPRICE_EXERCISE_SIZED_MIN_BLOCKS_PER_SM
#define MCPRICE_EXERCISE_SIZED_MIN_BLOCKS_PER_SM 2
#endif

namespace mcprice::tuning {

template <int... N>
struct asset_counts {
  static constexpr int kinds = sizeof...(N);
  static constexpr unsigned mask = ((1U << N) | ... | 0U);  // bit n for each count n
  MCPRICE_HD MCPRICE_INLINE static constexpr bool has(int n) { return ((n == N) || ...); }
};
using exercise_sized_assets = asset_counts<MCPRICE_EXERCISE_SIZED_ASSETS>;
inline constexpr int exercise_sized_kinds = exercise_sized_assets::kinds;

// Whether trades of n assets have a Greek-combination kernel of their own.
MCPRICE_HD MCPRICE_INLINE constexpr bool exercise_sized(int n) { return exercise_sized_assets::has(n); }

inline constexpr int exercise_walk_warps = MCPRICE_EXERCISE_WALK_WARPS;
inline constexpr int exercise_sized_walk_warps = MCPRICE_EXERCISE_SIZED_WALK_WARPS;
inline constexpr int exercise_walk_min_legs = 8;  // at most max_group_legs (early_exercise.hpp)

// A kernel's launch shape: the canonical block's threads, and the blocks an SM its registers
// are capped for.
template <int MinBlocksPerSm>
struct block_policy {
  static constexpr int threads_per_block = layout::lanes_per_block;
  static constexpr int min_blocks_per_sm = MinBlocksPerSm;
};

// 8 caps registers at 32 (a full SM of warps); a build may trade occupancy for registers.
using european_policy = block_policy<MCPRICE_EUROPEAN_MIN_BLOCKS_PER_SM>;
using european_fused_policy = block_policy<MCPRICE_EUROPEAN_FUSED_MIN_BLOCKS_PER_SM>;
using european_greek_policy = block_policy<MCPRICE_GREEK_MIN_BLOCKS_PER_SM>;
using heston_policy = block_policy<MCPRICE_HESTON_MIN_BLOCKS_PER_SM>;
using heston_european_policy = block_policy<MCPRICE_HESTON_EUROPEAN_MIN_BLOCKS_PER_SM>;
using exercise_policy = block_policy<MCPRICE_EXERCISE_MIN_BLOCKS_PER_SM>;
using exercise_sized_policy = block_policy<MCPRICE_EXERCISE_SIZED_MIN_BLOCKS_PER_SM>;

// The Greek-combination kernel's launch shape for trades of `Assets` assets (0: any count).
template <int Assets>
using combination_policy = std::conditional_t<Assets == 0, exercise_policy, exercise_sized_policy>;

}  // namespace mcprice::tuning
