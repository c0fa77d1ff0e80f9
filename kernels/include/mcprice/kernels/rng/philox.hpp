#pragma once
// Philox4x32-10 (Salmon et al., SC'11) exactly as cuRAND's curandStatePhilox4_32_10_t uses it:
// a 128-bit counter {x, y, z, w} and a 64-bit key {lo, hi}; curand_init(seed, subsequence,
// offset) puts the subsequence in counter words z,w and offset/4 in x,y. This host mirror
// lets the CPU backend draw the very numbers the GPU draws.
#include "mcprice/kernels/detail/host_device.hpp"

#include <cstdint>

namespace mcprice::rng {

struct u32x4 {
  std::uint32_t x, y, z, w;
};

struct philox_key {
  std::uint32_t lo, hi;
};

MCPRICE_HD MCPRICE_INLINE constexpr philox_key make_key(std::uint64_t seed)
{
  return {static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)};
}

namespace detail {
constexpr std::uint32_t weyl_0 = 0x9E3779B9U;
constexpr std::uint32_t weyl_1 = 0xBB67AE85U;
constexpr std::uint32_t mult_0 = 0xD2511F53U;
constexpr std::uint32_t mult_1 = 0xCD9E8D57U;

MCPRICE_HD MCPRICE_INLINE constexpr u32x4 round(u32x4 c, philox_key k)
{
  std::uint64_t const p0 = std::uint64_t{mult_0} * c.x;
  std::uint64_t const p1 = std::uint64_t{mult_1} * c.z;
  auto const hi0 = static_cast<std::uint32_t>(p0 >> 32);
  auto const hi1 = static_cast<std::uint32_t>(p1 >> 32);
  return {hi1 ^ c.y ^ k.lo, static_cast<std::uint32_t>(p1), hi0 ^ c.w ^ k.hi, static_cast<std::uint32_t>(p0)};
}
}  // namespace detail

MCPRICE_HD MCPRICE_INLINE constexpr u32x4 philox4x32_10(u32x4 counter, philox_key key)
{
  for (int r = 0; r < 9; ++r) {
    counter = detail::round(counter, key);
    key.lo += detail::weyl_0;
    key.hi += detail::weyl_1;
  }
  return detail::round(counter, key);
}

// Counter of block `block` (groups of four 32-bit outputs) in subsequence `subsequence`.
MCPRICE_HD MCPRICE_INLINE constexpr u32x4 make_counter(std::uint64_t subsequence, std::uint64_t block)
{
  return {static_cast<std::uint32_t>(block), static_cast<std::uint32_t>(block >> 32),
          static_cast<std::uint32_t>(subsequence), static_cast<std::uint32_t>(subsequence >> 32)};
}

// 128-bit increment with carry, as cuRAND's Philox_State_Incr.
MCPRICE_HD MCPRICE_INLINE constexpr void increment(u32x4& c)
{
  if (++c.x != 0U) return;
  if (++c.y != 0U) return;
  if (++c.z != 0U) return;
  ++c.w;
}

}  // namespace mcprice::rng
