#include "catch.hpp"
#include "mcprice/kernels/layout/canonical_layout.hpp"
#include "mcprice/kernels/rng/host_sobol_stream.hpp"
#include "mcprice/kernels/rng/sobol_terminal_lane.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

using namespace mcprice::rng;

TEST_CASE("Sobol dimension 0 is the van der Corput sequence, as in cuRAND")
{
  const std::uint32_t* v = sobol_direction_table();
  for (std::uint32_t i = 0; i < 1024; ++i) CHECK(sobol_coordinate(v, 0, i) == reverse_bits32(i));
}

TEST_CASE("the nibble tables give the direction numbers' coordinates")
{
  const std::uint32_t* v = sobol_direction_table();
  const std::uint32_t* t = sobol_nibble_table();
  std::uint32_t i = 0x9E3779B9U;
  for (std::uint32_t dim : {0U, 1U, 2U, 100U, 19999U}) {
    for (int k = 0; k < 200; ++k, i = hash32(i)) {
      std::uint32_t const index = k < 64 ? static_cast<std::uint32_t>(k) : i >> (k % 32);
      INFO("dim " << dim << " index " << index);
      REQUIRE(sobol_coordinate_by_nibbles(t, dim, index) == sobol_coordinate(v, dim, index));
    }
  }
  // The walk reads all eight nibbles and the terminal groups skip word 0: both rely on a nibble
  // of 0 contributing nothing.
  bool zero = true;
  for (std::size_t w = 0; w < std::size_t{sobol_dimensions} * sobol_nibble_words; w += 16) zero = zero && t[w] == 0U;
  CHECK(zero);
}

TEST_CASE("Owen scrambling keeps every dimension's first 2^k points one to an elementary interval")
{
  const std::uint32_t* v = sobol_nibble_table();
  for (std::uint32_t dim : {0U, 1U, 7U, 300U, 19999U}) {
    for (std::uint32_t seed : {1U, 0xDEADBEEFU}) {
      constexpr int k = 10;
      std::set<std::uint32_t> cells;
      for (std::uint32_t i = 0; i < (1U << k); ++i) cells.insert(scrambled_coordinate(v, seed, dim, i) >> (32 - k));
      INFO("dim " << dim << " seed " << seed);
      CHECK(cells.size() == (1U << k));
    }
  }
  // Different seeds scramble differently; the same seed the same way.
  CHECK(scrambled_coordinate(v, 1, 3, 5) != scrambled_coordinate(v, 2, 3, 5));
  CHECK(scrambled_coordinate(v, 1, 3, 5) == scrambled_coordinate(v, 1, 3, 5));
}

TEST_CASE("the bridge's dimensions are distinct and fewer than its count says")
{
  for (int n : {1, 2, 3, 5, 12, 64, 252, 1000}) {
    int const p = bridge_power(n);
    std::set<int> dims;
    for (int m = 1; m <= n; ++m) dims.insert(bridge_dimension(m, n, p));
    INFO("steps " << n);
    CHECK(static_cast<int>(dims.size()) == n);
    CHECK(*dims.rbegin() + 1 == bridge_dimensions(n));
  }
}

TEST_CASE("bridged increments are uncorrelated standard normals")
{
  // Over 2^14 points of a 12-step path, the increments' sample means, variances and
  // correlations are those of independent standard normals (randomised QMC is far tighter than
  // these bounds).
  constexpr int steps = 12;
  constexpr int n = 1 << 14;
  std::vector<double> sum(steps, 0.0);
  std::vector<double> sq(steps * steps, 0.0);
  for (int i = 0; i < n; ++i) {
    host_sobol_stream<1, double> s(sobol_key(12345, steps, 1), static_cast<std::uint64_t>(i));
    double z[steps + 4];
    for (int k = 0; k < steps; k += 4) {
      auto const q = s.next4_double();
      z[k] = q.x;
      z[k + 1] = q.y;
      z[k + 2] = q.z;
      z[k + 3] = q.w;
    }
    for (int a = 0; a < steps; ++a) {
      sum[a] += z[a];
      for (int b = 0; b < steps; ++b) sq[a * steps + b] += z[a] * z[b];
    }
  }
  for (int a = 0; a < steps; ++a) {
    CHECK(std::abs(sum[a] / n) < 0.01);
    for (int b = 0; b < steps; ++b) {
      INFO("increments " << a << ", " << b);
      CHECK(std::abs(sq[a * steps + b] / n - (a == b ? 1.0 : 0.0)) < 0.02);
    }
  }
}

TEST_CASE("the double inverse normal matches the float one to its precision and is antisymmetric")
{
  for (std::uint32_t bits : {1U, 12345U, 0x40000000U, 0x7FFFFFFFU, 0x80000000U, 0xC0000000U, 0xFFFFFFFEU}) {
    double const z = normal_from_bits_double(bits);
    CHECK(z == -normal_from_bits_double(~bits));
    CHECK(std::abs(z - mcprice::normal_from_bits(bits)) <= 5e-4 * std::max(1.0, std::abs(z)));  // the float tail
    double const u = (static_cast<double>(bits) + 0.5) * 0x1p-32;
    CHECK(std::abs(0.5 * std::erfc(-z / std::sqrt(2.0)) - u) <= 1e-15 + 1e-12 * std::min(u, 1 - u));
  }
}

// The Europeans' lane draw is an optimisation only: every group's four normals carry the bits of
// a stream built for that group, on the canonical layout's groups (two loads a group) and on any
// other (the whole walk), in float and in double.
template <typename Real>
void check_terminal_lane_bits()
{
  using stream = host_sobol_stream<0, Real>;
  using lane_draw = typename terminal_lane_of<stream>::type;
  static_assert(!std::is_void_v<lane_draw>);
  for (std::uint32_t seed : {1U, 0xDEADBEEFU}) {
    std::uint64_t const key = sobol_key(seed, 0, 1);
    for (std::int64_t block : {std::int64_t{0}, std::int64_t{1}, std::int64_t{77}, std::int64_t{40'000}}) {
      for (int lane : {0, 1, 131, 255}) {
        auto const first = static_cast<std::uint64_t>(mcprice::layout::group_index(block, 0, lane, 1));
        lane_draw const draw(key, first);
        std::vector<std::uint64_t> groups;
        for (int g = 0; g < mcprice::layout::groups_per_lane(1); ++g)
          groups.push_back(static_cast<std::uint64_t>(mcprice::layout::group_index(block, g, lane, 1)));
        groups.push_back(first + 1);        // not the lane's: the whole walk
        groups.push_back(first + 123'457);  // far off
        for (std::uint64_t const group : groups) {
          Real got[4];
          draw.next4(group, got);
          stream s(key, group);
          auto const want = s.next4_double();
          double const w[4] = {want.x, want.y, want.z, want.w};
          for (int j = 0; j < 4; ++j) {
            CAPTURE(seed, block, lane, group, j);
            CHECK(static_cast<double>(got[j]) == w[j]);
          }
        }
      }
    }
  }
}

TEST_CASE("the Europeans' lane draw gives each group's bits from a stream built for it")
{
  check_terminal_lane_bits<float>();
  check_terminal_lane_bits<double>();
}
