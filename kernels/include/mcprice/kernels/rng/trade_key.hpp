#pragma once
// Philox key of a trade: a function of the run seed and the trade id only, so a trade's
// numbers do not depend on its row, its neighbours, batching, streams or devices.
#include <cstdint>
#include <string_view>

namespace mcprice::rng {

// SplitMix64 finaliser (Steele, Lea, Flood 2014): spreads nearby seeds over the key space.
constexpr std::uint64_t mix64(std::uint64_t z)
{
  z += 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// FNV-1a, 64-bit: a stable digest of the id's bytes (std::hash is not stable across builds).
constexpr std::uint64_t fnv1a64(std::string_view bytes)
{
  std::uint64_t h = 0xCBF29CE484222325ULL;
  for (char const c : bytes) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001B3ULL;
  }
  return h;
}

constexpr std::uint64_t trade_key(std::uint64_t run_seed, std::string_view trade_id)
{
  return mix64(mix64(run_seed) ^ fnv1a64(trade_id));
}

}  // namespace mcprice::rng

namespace mcprice::rng {

// The scrambling seed of replicate `replicate` of a quasi-random trade: a function of the run
// seed, the trade id and the replicate only (sobol_points.hpp).
constexpr std::uint32_t replicate_seed(std::uint64_t run_seed, std::string_view trade_id, std::uint32_t replicate)
{
  return static_cast<std::uint32_t>(mix64(trade_key(run_seed, trade_id) ^ mix64(0x5251'4D43'0000'0000ULL + replicate)) >>
                                    32U);
}

}  // namespace mcprice::rng
