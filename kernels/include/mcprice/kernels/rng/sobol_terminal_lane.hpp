#pragma once
// A lane's quasi-random draws for a terminal family with one normal a sample (the Europeans): the
// same bits as a sobol_stream built for each of the lane's groups (next4 of its first dimension),
// for a fraction of the work.
//
// A coordinate is linear in the point index's bits (the XOR of the direction numbers of its set
// bits), so point p's coordinate is the lane's first point's XOR that of p XOR the first. A
// lane's groups lie lanes_per_block groups apart (canonical_layout.hpp), so that difference
// has set bits in the index's third and fourth nibbles only: two loads where a point's whole
// walk takes eight. The dimension's seed (two hashes) and its three low words (the group's
// other points) are the lane's, read once.
#include "mcprice/kernels/detail/host_device.hpp"
#include "mcprice/kernels/rng/sobol_stream.hpp"

#include <cstdint>

namespace mcprice::rng {

template <typename Directions, typename Real>
class sobol_terminal_lane {
 public:
  MCPRICE_HD MCPRICE_INLINE sobol_terminal_lane(std::uint64_t key, std::uint64_t first_group)
      : table_(Directions::get()),
        first_point_(static_cast<std::uint32_t>(first_group * 4)),
        seed_(dimension_seed(sobol_key_seed(key), 0)),
        first_(sobol_coordinate_by_nibbles(table_, 0, first_point_)),
        low1_(table_[1]),
        low2_(table_[2]),
        low3_(table_[3])
  {
  }

  // The four points of group `group` in dimension 0, as sobol_stream(key, group).next4().
  template <typename Out>
  MCPRICE_HD MCPRICE_INLINE void next4(std::uint64_t group, Out (&z)[4]) const
  {
    std::uint32_t const apart = static_cast<std::uint32_t>(group * 4) ^ first_point_;
    std::uint32_t first = first_;
    if ((apart & 0xFFFF00FFU) == 0U) {
      first ^= table_[16 * 2 + ((apart >> 8U) & 15U)] ^ table_[16 * 3 + ((apart >> 12U) & 15U)];
    } else {
      first ^= sobol_coordinate_by_nibbles(table_, 0, apart);  // any other layout: the whole walk
    }
    z[0] = static_cast<Out>(normal_of_coordinate<Real>(owen_scramble(first, seed_)));
    z[1] = static_cast<Out>(normal_of_coordinate<Real>(owen_scramble(first ^ low1_, seed_)));
    z[2] = static_cast<Out>(normal_of_coordinate<Real>(owen_scramble(first ^ low2_, seed_)));
    z[3] = static_cast<Out>(normal_of_coordinate<Real>(owen_scramble(first ^ low3_, seed_)));
  }

 private:
  const std::uint32_t* table_;
  std::uint32_t first_point_;
  std::uint32_t seed_;
  std::uint32_t first_;
  std::uint32_t low1_;
  std::uint32_t low2_;
  std::uint32_t low3_;
};

// The lane draw of a stream type: sobol_terminal_lane for a sobol_stream, void for the others.
template <typename Stream>
struct terminal_lane_of {
  using type = void;
};
template <typename Directions, int MaxFactors, typename Real>
struct terminal_lane_of<sobol_stream<Directions, MaxFactors, Real>> {
  using type = sobol_terminal_lane<Directions, Real>;
};

}  // namespace mcprice::rng
