#pragma once
// The quasi-random NormalStream: a lane group's Owen-scrambled Sobol point(s), handed to the
// per-path code through the same calls as the pseudo-random stream (next4, next4_double,
// next_uint4), so every model and product prices on it unchanged (docs/quasi-monte-carlo.md).
//
// A terminal family (key steps 0: the Europeans) holds four points a group, 4g..4g+3, and one
// next4 gives their first coordinates. A path family's group is one point: its normals come in
// the order the models draw them, step by step with `factors` normals a step, and each factor's
// normals are the increments of a Brownian bridge over the steps (sobol_points.hpp), generated
// in time order with a stack of the points already fixed to the right (at most log2(steps) + 2),
// so a path needs no buffer of its steps. Raw draws (next_uint4: the Heston QE step's uniforms)
// take the dimensions after the bridge's, one a draw, unbridged.
//
// Directions: a policy type whose get() returns the nibble tables (sobol_points.hpp) where the
// code runs (host memory on the CPU, device memory on a GPU). MaxFactors bounds the bridged normals a step
// (0: no bridge; the key's steps must then be 1, as for the multi-asset Europeans, whose
// factors are then the dimensions themselves).
#include "mcprice/kernels/detail/host_device.hpp"
#include "mcprice/kernels/rng/box_muller.hpp"
#include "mcprice/kernels/rng/inverse_normal.hpp"
#include "mcprice/kernels/rng/sobol_points.hpp"

#include <cmath>
#include <cstdint>
#include <type_traits>

namespace mcprice::rng {

// The standard normal of a 32-bit coordinate in double: the float inverse (about 4e-7 relative)
// polished by one Halley step on the smaller tail, whose precision the coordinate keeps.
MCPRICE_HD MCPRICE_INLINE double normal_from_bits_double(std::uint32_t bits)
{
  bool const upper = (bits >> 31U) != 0U;
  std::uint32_t const tail = upper ? ~bits : bits;
  double const s = (static_cast<double>(tail) + 0.5) * 2.3283064365386963e-10;  // < 1/2
  double x = -static_cast<double>(std::fabs(normal_from_bits(tail)));
  double const e = 0.5 * std::erfc(-x * 0.70710678118654752) - s;
  double const u = e * 2.5066282746310002 * std::exp(0.5 * x * x);
  x -= u / (1.0 + 0.5 * x * u);
  return upper ? -x : x;
}

template <typename Real>
MCPRICE_HD MCPRICE_INLINE Real normal_of_coordinate(std::uint32_t bits)
{
  if constexpr (std::is_same_v<Real, double>) return normal_from_bits_double(bits);
  else return normal_from_bits(bits);
}

// Points of a path bridged over up to 2^16 steps keep at most 18 nodes on the stack.
inline constexpr int sobol_bridge_depth = 18;

template <typename Directions, int MaxFactors, typename Real>
class sobol_stream {
 public:
  static constexpr bool quasi = true;

  MCPRICE_HD MCPRICE_INLINE sobol_stream(std::uint64_t key, std::uint64_t group)
      : directions_(Directions::get()),
        seed_(sobol_key_seed(key)),
        steps_(sobol_key_steps(key)),
        factors_(sobol_key_factors(key)),
        point_(static_cast<std::uint32_t>(steps_ == 0 ? group * 4 : group))
  {
    if (steps_ > 0) uniform_dimension_ = static_cast<std::uint32_t>(sobol_path_dimensions(steps_, factors_, 0));
    if constexpr (MaxFactors > 0) start_bridge();
  }

  MCPRICE_HD MCPRICE_INLINE f32x4 next4()
  {
    if constexpr (std::is_same_v<Real, float>) {
      auto const q = next4_real();
      return {q[0], q[1], q[2], q[3]};
    } else {
      auto const q = next4_real();
      return {static_cast<float>(q[0]), static_cast<float>(q[1]), static_cast<float>(q[2]), static_cast<float>(q[3])};
    }
  }
  MCPRICE_HD MCPRICE_INLINE f64x4 next4_double()
  {
    auto const q = next4_real();
    return {static_cast<double>(q[0]), static_cast<double>(q[1]), static_cast<double>(q[2]),
            static_cast<double>(q[3])};
  }
  MCPRICE_HD MCPRICE_INLINE u32x4 next_uint4()
  {
    u32x4 r{};
    r.x = coordinate(uniform_dimension_++);
    r.y = coordinate(uniform_dimension_++);
    r.z = coordinate(uniform_dimension_++);
    r.w = coordinate(uniform_dimension_++);
    return r;
  }

 private:
  struct four {
    Real v[4];
    MCPRICE_HD MCPRICE_INLINE Real operator[](int i) const { return v[i]; }
  };

  MCPRICE_HD MCPRICE_INLINE std::uint32_t coordinate(std::uint32_t dimension, std::uint32_t offset = 0) const
  {
    return scrambled_coordinate(directions_, seed_, dimension, point_ + offset);
  }
  MCPRICE_HD MCPRICE_INLINE Real normal(std::uint32_t dimension, std::uint32_t offset = 0) const
  {
    return normal_of_coordinate<Real>(coordinate(dimension, offset));
  }

  MCPRICE_HD MCPRICE_INLINE four next4_real()
  {
    four q{};
    if (steps_ == 0) {
      // Four points of a terminal group, in the dimension drawn next. They differ from the
      // first (a multiple of four) in the index's two low bits only, so their coordinates are
      // the first's XOR words 1-3 of the dimension's first nibble table (word 0 is 0), under
      // one dimension seed. Every lane reads the same three words.
      std::uint32_t const d = drawn_++;
      const std::uint32_t* low = directions_ + static_cast<std::size_t>(d) * sobol_nibble_words;
      std::uint32_t const first = sobol_coordinate_by_nibbles(directions_, d, point_);
      std::uint32_t const seed = dimension_seed(seed_, d);
      q.v[0] = normal_of_coordinate<Real>(owen_scramble(first, seed));
      MCPRICE_UNROLL
      for (int j = 1; j < 4; ++j) q.v[j] = normal_of_coordinate<Real>(owen_scramble(first ^ low[j], seed));
      return q;
    }
    MCPRICE_UNROLL
    for (int j = 0; j < 4; ++j) q.v[j] = next_path_normal();
    return q;
  }

  MCPRICE_HD MCPRICE_INLINE Real next_path_normal()
  {
    if constexpr (MaxFactors == 0) {
      // One step (no bridge): the normals are the dimensions, in order.
      return drawn_ < static_cast<std::uint32_t>(factors_) ? normal(drawn_++) : Real(0);
    } else {
      if (step_ >= steps_) return Real(0);  // draws past the path's end (a model draws in fours)
      if (factor_ == 0) advance_bridge();
      Real const z = increment_[factor_];
      if (++factor_ == factors_) {
        factor_ = 0;
        ++step_;
      }
      return z;
    }
  }

  MCPRICE_HD MCPRICE_INLINE void start_bridge()
  {
    power_ = bridge_power(steps_);
    Real const root = std::sqrt(static_cast<Real>(steps_));
    index_[0] = steps_;
    for (int f = 0; f < factors_ && f < MaxFactors; ++f) {
      value_[0][f] = root * normal(static_cast<std::uint32_t>(f));
      left_[f] = Real(0);
    }
    depth_ = 1;
  }

  // Fixes W at time step_ + 1 for every factor. In double (--precision double, for validation)
  // the GPU calls it rather than inlining it (MCPRICE_CALLED): inlined into every draw of every
  // model's step, with the double inverse normal's erfc and exp, it made the double quasi-random
  // kernels most of the library's code, which every engine loads at construction. Float keeps it
  // inlined: called, the float Sobol path kernels ran slower (docs/benchmarks.md, the Sobol
  // bridge step). The bridge's nodes live in local memory either way (the stack is indexed by
  // depth), so no value crosses the call in a register where inlining could fuse it: the same
  // bits both ways.
  MCPRICE_HD MCPRICE_INLINE void advance_bridge()
  {
    if constexpr (std::is_same_v<Real, double>) advance_bridge_called();
    else advance_bridge_inlined();
  }
  MCPRICE_HD MCPRICE_CALLED void advance_bridge_called() { advance_bridge_inlined(); }

  // The nodes between the last fixed time and the stack's top are filled, coarsest first, until
  // the top is that time; then it is popped.
  MCPRICE_HD MCPRICE_INLINE void advance_bridge_inlined()
  {
    int const k = step_ + 1;
    int const l = step_;
    while (index_[depth_ - 1] != k) {
      int const r = index_[depth_ - 1];
      int const m = bridge_split(l, r);
      Real const per_span = Real(1) / static_cast<Real>(r - l);
      Real const to_left = static_cast<Real>(m - l);
      Real const weight = to_left * per_span;
      Real const stdev = std::sqrt(to_left * static_cast<Real>(r - m) * per_span);
      auto const first = static_cast<std::uint32_t>(bridge_dimension(m, steps_, power_) * factors_);
      for (int f = 0; f < factors_ && f < MaxFactors; ++f) {
        Real const a = left_[f];
        value_[depth_][f] = a + weight * (value_[depth_ - 1][f] - a) + stdev * normal(first + f);
      }
      index_[depth_] = m;
      ++depth_;
    }
    --depth_;
    for (int f = 0; f < factors_ && f < MaxFactors; ++f) {
      increment_[f] = value_[depth_][f] - left_[f];
      left_[f] = value_[depth_][f];
    }
  }

  const std::uint32_t* directions_;
  std::uint32_t seed_;
  int steps_;
  int factors_;
  std::uint32_t point_;
  std::uint32_t drawn_{0};
  std::uint32_t uniform_dimension_{0};
  // The bridge (MaxFactors > 0).
  static constexpr int slots = MaxFactors > 0 ? MaxFactors : 1;
  int power_{1};
  int step_{0};
  int factor_{0};
  int depth_{0};
  // Written before they are read (start_bridge, advance_bridge): no per-path zeroing, which
  // for the exercise walk's twenty factors would be 360 stores a path.
  int index_[MaxFactors > 0 ? sobol_bridge_depth : 1];
  Real value_[MaxFactors > 0 ? sobol_bridge_depth : 1][slots];
  Real left_[slots];
  Real increment_[slots];
};

// Whether a stream is quasi-random (pseudo-random streams have no `quasi` member).
template <typename Stream, typename = void>
struct is_quasi : std::false_type {};
template <typename Stream>
struct is_quasi<Stream, std::void_t<decltype(Stream::quasi)>> : std::bool_constant<Stream::quasi> {};
template <typename Stream>
inline constexpr bool is_quasi_v = is_quasi<Stream>::value;

}  // namespace mcprice::rng
