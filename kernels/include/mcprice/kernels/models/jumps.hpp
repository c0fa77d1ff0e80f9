#pragma once
// Compound Poisson log-normal jumps of the log spot (Merton 1976; on a Heston asset, Bates 1996),
// exact between a path's steps: a step's number of jumps N from its Poisson law (mean
// lambda dt), by inversion of one uniform, and their summed log size, N mean + sqrt(N) vol Z
// given N, from a second draw. Both are raw 32-bit draws of the stream (next_uint4), so under
// Sobol points the bridged normals keep the diffusion and the jumps take the unbridged
// dimensions after them; an antithetic path takes the complemented bits (1 - U, and -Z).
//
// The drift's compensation, -lambda kappa dt with kappa = E[e^J] - 1 = e^(mean + vol^2 / 2) - 1,
// is in the steps' drifts (host-made), so the forward is the curves' own.
#include "mcprice/kernels/detail/host_device.hpp"
#include "mcprice/kernels/detail/real_math.hpp"
#include "mcprice/kernels/detail/rounded_product.hpp"
#include "mcprice/kernels/rng/sobol_stream.hpp"

#include <cmath>
#include <cstdint>

namespace mcprice {

// In a path record: intensity 0 means no jumps (the trade draws nothing for them).
template <typename Real>
struct basic_jump_law {
  Real intensity;  // jumps a year
  Real mean;       // of a log jump size
  Real vol;        // standard deviation of a log jump size
};

// A step's raw draws for its jumps.
struct jump_draw {
  std::uint32_t count_bits;
  std::uint32_t size_bits;
  [[nodiscard]] MCPRICE_HD MCPRICE_INLINE jump_draw antithetic() const { return {~count_bits, ~size_bits}; }
};

// What a jump-free trade's steps are handed: no draw, and no work.
struct no_jump {
  [[nodiscard]] MCPRICE_HD MCPRICE_INLINE no_jump antithetic() const { return {}; }
};

// (bits + 1/2) / 2^32: never 0 (in float a draw near 2^32 may round to 1, the law's far tail).
template <typename Real>
MCPRICE_HD MCPRICE_INLINE Real uniform_of_bits(std::uint32_t bits)
{
  return (static_cast<Real>(bits) + Real(0.5)) * Real(2.3283064365386963e-10);
}

// The least n with P(N <= n) >= U for N Poisson with mean m: one exponential where the step has
// no jump (nearly always for daily steps). The loop ends where the terms underflow, far in the
// tail, or at a count no market input reaches.
template <typename Real>
MCPRICE_HD MCPRICE_INLINE int poisson_count(Real m, std::uint32_t bits)
{
  Real const u = uniform_of_bits<Real>(bits);
  Real p = math::exp(-m);
  Real c = p;
  int n = 0;
  while (u > c && p > Real(0) && n < 4096) {
    ++n;
    p = rounded_product(p, m) / static_cast<Real>(n);
    c = c + p;
  }
  return n;
}

// The log of the jumps' product over a step whose mean count is m.
template <typename Real>
MCPRICE_HD MCPRICE_INLINE Real log_jump(const basic_jump_law<Real>& law, Real m, const jump_draw& d)
{
  int const n = poisson_count(m, d.count_bits);
  if (n == 0) return Real(0);
  Real const count = static_cast<Real>(n);
  Real const z = rng::normal_of_coordinate<Real>(d.size_bits);
  return math::fma(count, law.mean, rounded_product(rounded_product(math::sqrt(count), law.vol), z));
}

// A step's log increment with its jumps (none: the increment itself, with the same bits).
template <typename Real>
MCPRICE_HD MCPRICE_INLINE Real with_jump(Real dx, no_jump) { return dx; }
template <typename Real>
MCPRICE_HD MCPRICE_INLINE Real with_jump(Real dx, Real jump) { return dx + jump; }

// e^(mean + vol^2 / 2) - 1: the compensator's kappa.
inline double jump_kappa(double mean, double vol) { return std::expm1(mean + 0.5 * vol * vol); }

}  // namespace mcprice
