#pragma once
// Launch shapes in one table (the CUB convention), not literals spread over kernels. Block
// size is pinned to the canonical block: the in-block reduction tree is part of the result's
// definition. The grid is the resident block count (a persistent grid); its size only
// changes scheduling, never the numbers.
#include "mcprice/kernels/layout/canonical_layout.hpp"

#include <type_traits>

// Each value below is a build-time default, overridable with -D, with one line on why it was
// chosen. The measurements behind them, with their commands and dates, are in
// docs/benchmarks.md ("Tuning values").

// Blocks an SM the path, two-phase and reduction kernels' registers are capped for: 8 is a
// full SM of warps at 32 registers.
#ifndef MCPRICE_EUROPEAN_MIN_BLOCKS_PER_SM
#define MCPRICE_EUROPEAN_MIN_BLOCKS_PER_SM 8
#endif

// The fused European kernel: 6 blocks (40 registers) beat 8 (32) by 3.4%, since it is issue-bound.
#ifndef MCPRICE_EUROPEAN_FUSED_MIN_BLOCKS_PER_SM
#define MCPRICE_EUROPEAN_FUSED_MIN_BLOCKS_PER_SM 6
#endif

// The European Greek kernel: 4 blocks (64 registers, no spills) ran a job 9% faster than 3 (70).
// 5 (48 registers; Philox spills 88 bytes, Sobol 468) ran a bench's Greek jobs 1.8% faster than 4
// (62 registers), Philox only measured: not taken, since the one cap also serves Sobol.
#ifndef MCPRICE_GREEK_MIN_BLOCKS_PER_SM
#define MCPRICE_GREEK_MIN_BLOCKS_PER_SM 4
#endif

// The Heston kernel of a request of Europeans only: 4 blocks (63 registers, no spills), the
// fastest cap measured.
#ifndef MCPRICE_HESTON_EUROPEAN_MIN_BLOCKS_PER_SM
#define MCPRICE_HESTON_EUROPEAN_MIN_BLOCKS_PER_SM 4
#endif
// The Heston kernel for every product: 3 or 4 blocks ran 12% faster than uncapped (2 blocks).
#ifndef MCPRICE_HESTON_MIN_BLOCKS_PER_SM
#define MCPRICE_HESTON_MIN_BLOCKS_PER_SM 3
#endif

// The early-exercise pricing and Greek-combination kernel: 3 blocks (80 registers, no spills)
// ran the STAC-A2-style workloads 10% faster than uncapped.
#ifndef MCPRICE_EXERCISE_MIN_BLOCKS_PER_SM
#define MCPRICE_EXERCISE_MIN_BLOCKS_PER_SM 3
#endif

// Greeks of early-exercise trades: a trade's walk groups hold as many spot legs as leave their
// walks about this many warps (the Greek kernel's resident warps on an H200: 132 SMs x 3
// blocks x 8 warps), between 8 and 64 legs. Each walk saved is a path's normals and steps, but
// a walk serves its legs one after another in one thread (early_exercise.hpp).
#ifndef MCPRICE_EXERCISE_WALK_WARPS
#define MCPRICE_EXERCISE_WALK_WARPS 3168
#endif

// The same for trades whose Greeks run a sized kernel (132 SMs x 2 blocks x 8 warps resident).
#ifndef MCPRICE_EXERCISE_SIZED_WALK_WARPS
#define MCPRICE_EXERCISE_SIZED_WALK_WARPS 2112
#endif

// Asset counts whose early-exercise Greek combinations run a kernel compiled for that count: the
// path's state, correlation and loops over assets live in registers, unrolled. Each count is a
// kernel of its own so that its registers are its own; the other counts share one kernel.
#ifndef MCPRICE_EXERCISE_SIZED_ASSETS
#define MCPRICE_EXERCISE_SIZED_ASSETS 5
#endif

// The sized Greek-combination kernels' blocks an SM (their registers' cap).
#ifndef MCPRICE_EXERCISE_SIZED_MIN_BLOCKS_PER_SM
#define MCPRICE_EXERCISE_SIZED_MIN_BLOCKS_PER_SM 2
#endif

// The Greek kernels of local-vol and Heston worst-ofs (scenario walks called from the lane): 2
// blocks (128 registers, some spills) ran the Heston worst-of-3 book's Greeks 1.39x faster than
// uncapped (248 registers) and 3 blocks (80).
#ifndef MCPRICE_WORST_OF_GREEK_MIN_BLOCKS_PER_SM
#define MCPRICE_WORST_OF_GREEK_MIN_BLOCKS_PER_SM 2
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

using european_policy = block_policy<MCPRICE_EUROPEAN_MIN_BLOCKS_PER_SM>;
using european_fused_policy = block_policy<MCPRICE_EUROPEAN_FUSED_MIN_BLOCKS_PER_SM>;
using european_greek_policy = block_policy<MCPRICE_GREEK_MIN_BLOCKS_PER_SM>;
using heston_policy = block_policy<MCPRICE_HESTON_MIN_BLOCKS_PER_SM>;
using heston_european_policy = block_policy<MCPRICE_HESTON_EUROPEAN_MIN_BLOCKS_PER_SM>;
using exercise_policy = block_policy<MCPRICE_EXERCISE_MIN_BLOCKS_PER_SM>;
using exercise_sized_policy = block_policy<MCPRICE_EXERCISE_SIZED_MIN_BLOCKS_PER_SM>;
using worst_of_greek_policy = block_policy<MCPRICE_WORST_OF_GREEK_MIN_BLOCKS_PER_SM>;

// The Greek-combination kernel's launch shape for trades of `Assets` assets (0: any count).
template <int Assets>
using combination_policy = std::conditional_t<Assets == 0, exercise_policy, exercise_sized_policy>;

}  // namespace mcprice::tuning
