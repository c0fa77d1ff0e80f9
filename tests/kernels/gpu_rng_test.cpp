// The device's cuRAND numbers against the host mirror the CPU backend uses.
#include "catch.hpp"
#include "mcprice/kernels/rng/host_normal_stream.hpp"
#include "rng_probe.hpp"

#include <cmath>

using namespace mcprice;
using namespace mcprice::testing;

namespace {
std::vector<rng_probe_case> probe_cases()
{
  std::vector<rng_probe_case> cases;
  std::uint64_t const offsets[] = {0, 1, 2, 3, 4, 5, 7, 1000, 4097, (1ULL << 33) + 3, (1ULL << 62) + 1};
  for (std::uint64_t s = 0; s < 3000; ++s) cases.push_back({s, offsets[s % 11]});
  for (std::uint64_t s : {1ULL << 32, (1ULL << 32) - 1, 1ULL << 40, ~0ULL, 0x123456789ABCDEFULL}) {
    for (std::uint64_t o : offsets) cases.push_back({s, o});
  }
  return cases;
}
}  // namespace

TEST_CASE("GPU curand4 equals the host mirror bit for bit over many subsequences and offsets", "[gpu]")
{
  int const draws = 5;
  for (std::uint64_t key : {42ULL, 0ULL, 0xFEDCBA9876543210ULL}) {
    auto const cases = probe_cases();
    auto const gpu = device_curand4(key, cases, draws);
    std::size_t mismatches = 0;
    for (std::size_t i = 0; i < cases.size(); ++i) {
      rng::host_philox_stream host(key, cases[i].subsequence, cases[i].offset);
      for (int d = 0; d < draws; ++d) {
        auto const h = host.next_uint4();
        auto const& g = gpu[i * draws + static_cast<std::size_t>(d)];
        if (h.x != g.x || h.y != g.y || h.z != g.z || h.w != g.w) ++mismatches;
      }
    }
    INFO("key " << key);
    CHECK(mismatches == 0);
  }
  auto const first = device_curand4(42, {{0, 0}}, 1);
  CHECK(first[0].x == 0x9ceaf053U);
}

TEST_CASE("GPU curand_normal4 equals the host mirror to sin/cos rounding", "[gpu]")
{
  auto const cases = probe_cases();
  int const draws = 3;
  auto const gpu = device_curand_normal4(42, cases, draws);
  float worst = 0.0F;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    rng::host_philox_stream host(42, cases[i].subsequence, cases[i].offset);
    for (int d = 0; d < draws; ++d) {
      auto const h = host.next_normal4();
      auto const& g = gpu[i * draws + static_cast<std::size_t>(d)];
      for (auto diff : {h.x - g.x, h.y - g.y, h.z - g.z, h.w - g.w}) worst = std::max(worst, std::abs(diff));
    }
  }
  CHECK(worst < 2e-5F);
}
