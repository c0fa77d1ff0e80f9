#pragma once
// Owen-scrambled Sobol points (docs/quasi-monte-carlo.md).
//
// Coordinates: cuRAND's 32-bit Joe-Kuo direction numbers (curandGetDirectionVectors32,
// CURAND_DIRECTION_VECTORS_32_JOEKUO6, 20,000 dimensions), copied into the library at build time
// (sobol_table_generator.cpp) so that the CPU backend and every GPU read the very same numbers.
// Point i's coordinate in dimension d is the XOR of the direction numbers of i's set bits (the
// natural order; its first 2^k points are the same set as the Gray-code order's).
//
// Scrambling: nested uniform (Owen) scrambling by a hash, after Laine and Karras (2011) with
// Burley's constants (B. Burley, "Practical Hash-based Owen Scrambling", JCGT 2020): on the
// reversed bits, every operation carries information only from lower to higher bits, so each
// output bit is its input bit flipped by a function of the bits above it. A dimension's seed is
// a hash of (replicate seed, dimension); the replicate seed is a hash of (run seed, trade id,
// replicate), so every scrambling is reproducible and independent (QuantLib #2731, #2732).
#include "mcprice/kernels/detail/host_device.hpp"

#include <cstddef>
#include <cstdint>

namespace mcprice::rng {

inline constexpr int sobol_dimensions = 20000;
inline constexpr int sobol_direction_bits = 32;

MCPRICE_HD MCPRICE_INLINE std::uint32_t reverse_bits32(std::uint32_t x)
{
#if defined(__CUDA_ARCH__)
  return __brev(x);
#else
  x = ((x >> 1U) & 0x55555555U) | ((x & 0x55555555U) << 1U);
  x = ((x >> 2U) & 0x33333333U) | ((x & 0x33333333U) << 2U);
  x = ((x >> 4U) & 0x0F0F0F0FU) | ((x & 0x0F0F0F0FU) << 4U);
  x = ((x >> 8U) & 0x00FF00FFU) | ((x & 0x00FF00FFU) << 8U);
  return (x >> 16U) | (x << 16U);
#endif
}

// A 32-bit integer hash with good avalanche (C. Wellons' "lowbias32").
MCPRICE_HD MCPRICE_INLINE constexpr std::uint32_t hash32(std::uint32_t x)
{
  x ^= x >> 16U;
  x *= 0x7FEB352DU;
  x ^= x >> 15U;
  x *= 0x846CA68BU;
  x ^= x >> 16U;
  return x;
}

MCPRICE_HD MCPRICE_INLINE constexpr std::uint32_t dimension_seed(std::uint32_t replicate_seed, std::uint32_t dimension)
{
  return hash32(replicate_seed ^ hash32(dimension + 0x9E3779B9U));
}

// Owen scrambling of a coordinate under a dimension's seed: a bijection of [0, 2^32) that keeps
// every elementary interval's points in one elementary interval of the same size.
MCPRICE_HD MCPRICE_INLINE std::uint32_t owen_scramble(std::uint32_t x, std::uint32_t seed)
{
  x = reverse_bits32(x);
  x ^= x * 0x3D20ADEAU;
  x += seed;
  x *= (seed >> 16U) | 1U;
  x ^= x * 0x05526C56U;
  x ^= x * 0x53A22864U;
  return reverse_bits32(x);
}

// The unscrambled coordinate of point `index` in dimension `dimension`; `directions` holds
// sobol_direction_bits numbers a dimension.
MCPRICE_HD MCPRICE_INLINE std::uint32_t sobol_coordinate(const std::uint32_t* directions, std::uint32_t dimension,
                                                         std::uint32_t index)
{
  const std::uint32_t* v = directions + static_cast<std::size_t>(dimension) * sobol_direction_bits;
  std::uint32_t x = 0;
  for (int b = 0; index != 0U; ++b, index >>= 1U) {
    if ((index & 1U) != 0U) x ^= v[b];
  }
  return x;
}

// The same coordinate from a dimension's nibble tables (sobol_nibble_words numbers a dimension:
// for each of the index's eight nibbles, the XOR of the direction numbers of each of its 16
// values): one load a nibble of the index instead of one a bit. A warp's consecutive points
// read one or two neighbouring words of each table.
//
// All eight nibbles are read, in a loop the compiler unrolls: a nibble of 0 reads its table's
// word 0, which is 0, so the coordinate is the same as a walk that stops after the index's last
// set nibble. That walk's data-dependent exit kept the GPU from issuing the loads together, and
// cost more than the extra loads (docs/benchmarks.md, "Quasi-Monte Carlo: the coordinate walk").
inline constexpr int sobol_nibble_words = 8 * 16;

MCPRICE_HD MCPRICE_INLINE std::uint32_t sobol_coordinate_by_nibbles(const std::uint32_t* nibbles,
                                                                    std::uint32_t dimension, std::uint32_t index)
{
  const std::uint32_t* t = nibbles + static_cast<std::size_t>(dimension) * sobol_nibble_words;
  std::uint32_t x = 0;
  MCPRICE_UNROLL
  for (int k = 0; k < 8; ++k) x ^= t[16 * k + ((index >> (4 * k)) & 15U)];
  return x;
}

// Fills `nibbles` (sobol_nibble_words a dimension) from `directions`, for `dimensions` dimensions.
inline void fill_sobol_nibbles(const std::uint32_t* directions, int dimensions, std::uint32_t* nibbles)
{
  for (int d = 0; d < dimensions; ++d) {
    const std::uint32_t* v = directions + static_cast<std::size_t>(d) * sobol_direction_bits;
    std::uint32_t* t = nibbles + static_cast<std::size_t>(d) * sobol_nibble_words;
    for (int k = 0; k < 8; ++k) {
      for (std::uint32_t n = 0; n < 16; ++n) {
        std::uint32_t x = 0;
        for (int b = 0; b < 4; ++b) {
          if ((n >> b & 1U) != 0U) x ^= v[4 * k + b];
        }
        t[16 * k + n] = x;
      }
    }
  }
}

// Point `index`'s scrambled coordinate in `dimension`, from the nibble tables.
MCPRICE_HD MCPRICE_INLINE std::uint32_t scrambled_coordinate(const std::uint32_t* nibbles, std::uint32_t seed,
                                                             std::uint32_t dimension, std::uint32_t index)
{
  return owen_scramble(sobol_coordinate_by_nibbles(nibbles, dimension, index), dimension_seed(seed, dimension));
}

// ---- The shape of a trade's points, carried in its record's 64-bit key --------------------------
// A quasi-random trade's key holds its replicate's scrambling seed (bits 0-31), its path's steps
// (bits 32-47; 0: a terminal family, whose lane group holds four one-dimensional points) and the
// normals each step draws (bits 48-55: its factors). Records keep their layout, and a stream is
// built from (key, group) as the pseudo-random one is.
inline constexpr int sobol_max_steps = 0xFFFF;
inline constexpr int sobol_max_factors = 0xFF;

MCPRICE_HD MCPRICE_INLINE constexpr std::uint64_t sobol_key(std::uint32_t seed, int steps, int factors)
{
  return std::uint64_t{seed} | (static_cast<std::uint64_t>(steps) << 32U) | (static_cast<std::uint64_t>(factors) << 48U);
}
MCPRICE_HD MCPRICE_INLINE constexpr std::uint32_t sobol_key_seed(std::uint64_t key)
{
  return static_cast<std::uint32_t>(key);
}
MCPRICE_HD MCPRICE_INLINE constexpr int sobol_key_steps(std::uint64_t key)
{
  return static_cast<int>((key >> 32U) & 0xFFFFU);
}
MCPRICE_HD MCPRICE_INLINE constexpr int sobol_key_factors(std::uint64_t key)
{
  return static_cast<int>((key >> 48U) & 0xFFU);
}

// ---- The Brownian bridge's order over a path's steps ---------------------------------------------
// Steps 1..n in unit time (each step's increment is a standard normal; the models scale it), built
// coarse to fine: W(n) first, then the dyadic midpoints of the power of two p >= n, clipped to n.
// Node m < n (lowest set bit h) takes Sobol dimension (p/h + m/h - 1)/2, so the first dimensions
// carry the coarse moves; a few dimensions stay unused when n is not a power of two.
MCPRICE_HD MCPRICE_INLINE constexpr int bridge_power(int n)
{
  int p = 1;
  while (p < n) p *= 2;
  return p;
}

MCPRICE_HD MCPRICE_INLINE constexpr int bridge_dimension(int m, int n, int p)
{
  if (m == n) return 0;
  int const h = m & -m;
  return (p / h + m / h - 1) / 2;
}

// Dimensions a bridge over n steps uses (its largest, plus one).
MCPRICE_HD MCPRICE_INLINE constexpr int bridge_dimensions(int n)
{
  if (n <= 1) return 1;
  int const odd = (n - 1) % 2 == 1 ? n - 1 : n - 2;  // the largest odd node, the finest level's last
  return (bridge_power(n) + odd - 1) / 2 + 1;
}

// The node filled between known points l and r (l + 1 < r): the one of the coarsest level.
MCPRICE_HD MCPRICE_INLINE constexpr int bridge_split(int l, int r)
{
  auto const a = static_cast<std::uint32_t>(l);
  auto const b = static_cast<std::uint32_t>(r - 1);
  std::uint32_t diff = a ^ b;
  std::uint32_t top = 1;
  while ((diff >>= 1U) != 0U) top <<= 1U;
  return static_cast<int>(b & ~(top - 1U));
}

// Sobol dimensions of a path trade: `factors` bridged normals a step, then `uniforms` raw
// coordinates (the Heston QE step's uniform draws one a step).
MCPRICE_HD MCPRICE_INLINE constexpr std::int64_t sobol_path_dimensions(int steps, int factors, int uniforms)
{
  return std::int64_t{bridge_dimensions(steps)} * factors + uniforms;
}

}  // namespace mcprice::rng
