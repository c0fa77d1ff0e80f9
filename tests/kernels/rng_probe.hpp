#pragma once
// Test-only window onto cuRAND on the device: the numbers a kernel draws, copied back.
#include "mcprice/kernels/rng/box_muller.hpp"

#include <cstdint>
#include <vector>

namespace mcprice::testing {

struct rng_probe_case {
  std::uint64_t subsequence;
  std::uint64_t offset;
};

// `draws` successive curand4 results per case, after curand_init(key, subsequence, offset).
std::vector<rng::u32x4> device_curand4(std::uint64_t key, const std::vector<rng_probe_case>& cases, int draws);
// `draws` successive curand_normal4 results per case.
std::vector<rng::f32x4> device_curand_normal4(std::uint64_t key, const std::vector<rng_probe_case>& cases, int draws);
// `draws` successive next4() of the engine's device_normal_stream(key, subsequence); offsets ignored.
std::vector<rng::f32x4> device_engine_normal4(std::uint64_t key, const std::vector<rng_probe_case>& cases, int draws);

}  // namespace mcprice::testing
