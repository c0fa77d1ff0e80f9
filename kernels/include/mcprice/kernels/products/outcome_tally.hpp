#pragma once
// How an autocallable's paths ended, counted beside its price: which observation redeemed each
// path and how likely it was knocked in. The counts are integers, so their totals are the same
// whatever order the paths finish in (atomics on the GPU, on host threads on the CPU): the same
// bits on every grid, stream and job split.
#include "mcprice/kernels/detail/host_device.hpp"

#include <cstdint>

namespace mcprice {

// A trade's counters: slot 0 holds the knock-in probability summed over paths in units of
// 2^-24 (tally_units), slot 1 + j the paths redeemed at observation row j, and slot 1 + rows
// the paths that ran to maturity without being called.
inline constexpr int tally_knock_in_slot = 0;
inline constexpr int tally_first_redemption_slot = 1;
inline constexpr double tally_unit = 1.0 / 16777216.0;  // 2^-24

// The slots a trade with `rows` observation rows takes.
MCPRICE_HD MCPRICE_INLINE constexpr int tally_slots_of(int rows) { return rows + 2; }

// p in [0, 1] in units of 2^-24, rounded: a path adds at most 2^24, so 2^39 paths fit.
template <typename Real>
MCPRICE_HD MCPRICE_INLINE unsigned long long tally_units(Real p)
{
  return static_cast<unsigned long long>(static_cast<double>(p) * 16777216.0 + 0.5);
}

// Adds v (at most 2^24) to a counter. On the GPU the lanes of a warp adding to one counter add
// their sum once: a book's paths all end on a few counters, and one atomic per lane would queue
// on them.
MCPRICE_HD MCPRICE_INLINE void tally_add(unsigned long long* slot, unsigned long long v)
{
#if defined(__CUDA_ARCH__)
  unsigned const active = __activemask();
  unsigned const peers = __match_any_sync(active, reinterpret_cast<unsigned long long>(slot));
  unsigned const total = __reduce_add_sync(peers, static_cast<unsigned>(v));
  unsigned const lane = threadIdx.x & 31U;
  if ((peers & ((1U << lane) - 1U)) == 0U && total != 0U) atomicAdd(slot, static_cast<unsigned long long>(total));
#else
  __atomic_fetch_add(slot, v, __ATOMIC_RELAXED);
#endif
}

}  // namespace mcprice
