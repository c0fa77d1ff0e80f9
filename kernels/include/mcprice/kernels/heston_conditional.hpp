#pragma once
// Heston Europeans by conditional Monte Carlo: a path simulates only the variance, by QE with
// the martingale correction, and its payoff is the expectation of the European payoff given
// that variance path, in closed form.
//
// Given the variances v_0..v_n, the QE scheme's log spot (heston_qe_moments) is a sum of
// independent normal increments, each of mean K0* + K1 v_i + K2 v_{i+1} (with the step's drift)
// and variance K3 (v_i + v_{i+1}). So ln(S_T / S_0) is normal with mean x (their means' sum)
// and variance w (their variances' sum), and E[payoff | variances] is Black's formula on the
// forward S_0 exp(x + w / 2) and total variance w. The estimator has the very expectation of the
// scheme that also steps the log spot (same K's, same martingale correction, same bias), a
// smaller variance (the spot's own noise is integrated out: Willard 1997, "Calculating prices
// and sensitivities for path-independent derivative securities in multifactor models"), and
// draws one random number a step instead of three.
//
// The variance's draws come one 32-bit Philox output a step (inverse_normal.hpp): the quadratic
// branch takes z = N^-1(U) of it, the exponential branch the uniform itself; the antithetic path
// takes the complemented bits (-z and 1 - U). Double paths (validation) draw z by Box-Muller
// from the stream's doubles and U from its raw bits, as the path products do.
#include "mcprice/kernels/heston_path.hpp"
#include "mcprice/kernels/inverse_normal.hpp"

namespace mcprice {

// Calls step(k, draw) for each step of a Heston European's variance path.
template <typename Real, typename NormalStream, typename Step>
MCPRICE_HD MCPRICE_INLINE void for_heston_variance_draws(int steps, NormalStream& rng, Step&& step)
{
  using draw = basic_qe_paired_draw<Real>;
  for (int k = 0; k < steps; k += 4) {
    auto const bits = rng.next_uint4();
    std::uint32_t const b[4] = {bits.x, bits.y, bits.z, bits.w};
    if constexpr (std::is_same_v<Real, float>) {
      MCPRICE_UNROLL
      for (int j = 0; j < 4; ++j) {
        if (k + j < steps) step(k + j, draw{normal_from_bits(b[j]), b[j]});
      }
    } else {
      auto const z = mcprice::rng::normals4<Real>(rng);
      Real const zs[4] = {z.x, z.y, z.z, z.w};
      MCPRICE_UNROLL
      for (int j = 0; j < 4; ++j) {
        if (k + j < steps) step(k + j, draw{zs[j], b[j]});
      }
    }
  }
}

// What a variance path leaves for the European: the log spot's conditional mean and variance.
template <typename Real>
struct heston_terminal {
  Real x{0};  // E[ln(S_T / S_0) | variances]
  Real w{0};  // Var[ln(S_T / S_0) | variances]
  MCPRICE_HD MCPRICE_INLINE void add(const heston_log_step<Real>& s)
  {
    x = x + s.mean;
    w = w + s.gauss;
  }
};

// E[payoff | ln(S_T / S_0) ~ N(x, w)] in units paid at T: Black's formula on the forward
// S_0 exp(x + w / 2); with no variance left (rho = +-1, or no vol of vol and a zero variance)
// the payoff at that forward.
template <typename Real>
MCPRICE_HD MCPRICE_INLINE Real conditional_european_payoff(const basic_path_gbm_trade<Real>& t, Real x, Real w)
{
  Real const zero(0);
  Real const one(1);
  Real const forward = rounded_product(t.spot, math::exp(math::fma(Real(0.5), w, x)));
  Real const sd = math::sqrt(math::fmax(w, zero));
  Real const side = t.call ? one : -one;
  Real n1 = zero;  // N(side d1): the asset's exercise probability, in the forward measure of S
  Real n2 = zero;  // N(side d2): the exercise probability
  if (sd > zero && t.strike > zero) {
    Real const d = math::log(forward / t.strike) / sd;
    n1 = math::standard_normal_cdf(rounded_product(side, math::fma(Real(0.5), sd, d)));
    n2 = math::standard_normal_cdf(rounded_product(side, math::fma(Real(-0.5), sd, d)));
  } else {
    bool const in = t.call ? forward > t.strike : forward < t.strike;
    n1 = in ? one : zero;
    n2 = n1;
  }
  if (t.digital == 1) return rounded_product(t.rebate, n2);
  if (t.digital == 2) return rounded_product(forward, n1);
  Real const asset = rounded_product(forward, n1);
  Real const cash = rounded_product(t.strike, n2);
  return math::fmax(t.call ? asset - cash : cash - asset, zero);
}

// One sample (a path, or an antithetic pair) of a Heston European.
template <typename NormalStream, bool Antithetic, typename Real>
MCPRICE_HD MCPRICE_INLINE Real heston_european_sample(const basic_heston_trade<Real>& h,
                                                      const basic_heston_step<Real>* grid, std::uint64_t group)
{
  const basic_path_gbm_trade<Real>& t = h;
  NormalStream rng(t.key, group);
  heston_terminal<Real> a{};
  heston_terminal<Real> b{};
  Real va = h.v0;
  Real vb = h.v0;
  const basic_heston_step<Real>* steps = grid + t.first_step;
  for_heston_variance_draws<Real>(t.steps, rng, [&](int k, const basic_qe_paired_draw<Real>& draw) {
    basic_heston_step<Real> const s = steps[k];
    a.add(heston_qe_moments(h.xi, s, va, draw));
    if constexpr (Antithetic) b.add(heston_qe_moments(h.xi, s, vb, draw.antithetic()));
  });
  Real const up = conditional_european_payoff(t, a.x, a.w);
  if constexpr (!Antithetic) return up;
  else return Real(0.5) * (up + conditional_european_payoff(t, b.x, b.w));
}

}  // namespace mcprice
