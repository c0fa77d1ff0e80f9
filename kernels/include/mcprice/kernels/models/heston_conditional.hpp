#pragma once
// Heston Europeans by conditional Monte Carlo: a path simulates only the variance, by QE with
// the martingale correction, and its payoff is the expectation of the European payoff given
// that variance path, in closed form.
//
// Given the variances v_0..v_n, the QE scheme's log spot (heston_qe_step) is a sum of
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
//
// Most trades' steps are regular (heston_qe_regular): a vol of vol, E[v'] > 0 and A <= 0, so
// every step has both branches' martingale corrections and no log-normal fallback. Their paths
// step without those tests (Regular), to the same bits.
#include "mcprice/kernels/models/heston_path.hpp"
#include "mcprice/kernels/rng/inverse_normal.hpp"
#include "mcprice/kernels/rng/philox.hpp"
#include "mcprice/kernels/rng/sobol_stream.hpp"

#include <limits>
#include <type_traits>

namespace mcprice {

// A subsequence's raw Philox blocks in the order curand4 hands them out (philox.hpp), each
// computed when asked: a float European's variance path draws nothing else, and cuRAND's state
// would keep a look-ahead block and its position in registers across the whole path.
struct raw_block_stream {
  rng::u32x4 counter;
  rng::philox_key key;
  MCPRICE_HD MCPRICE_INLINE raw_block_stream(std::uint64_t seed, std::uint64_t subsequence)
      : counter(rng::make_counter(subsequence, 0)), key(rng::make_key(seed))
  {
  }
  MCPRICE_HD MCPRICE_INLINE rng::u32x4 next_uint4()
  {
    rng::u32x4 const out = rng::philox4x32_10(counter, key);
    rng::increment(counter);
    return out;
  }
};

// The stream a European's variance path draws from: raw blocks for float paths, the family's
// normal stream (for Box-Muller doubles) for double paths; the same bits either way. Sobol
// points: the family's stream, whose raw draws are the scrambled coordinates.
template <typename NormalStream, typename Real>
using variance_stream =
    std::conditional_t<std::is_same_v<Real, float> && !rng::is_quasi_v<NormalStream>, raw_block_stream, NormalStream>;

// A variance step's draw: the quadratic branch's normal and the exponential branch's uniform
// (taken as 1 - U), with the antithetic path's (-z, and the uniform of the complemented bits).
template <typename Real>
struct conditional_draw {
  Real z;
  Real u;
  Real antithetic_u;
  MCPRICE_HD MCPRICE_INLINE Real upper() const { return u; }
  MCPRICE_HD MCPRICE_INLINE conditional_draw antithetic() const { return {-z, antithetic_u, u}; }
};

// Sobol points: four steps' bridged normals (the bridge's first dimension moves the whole
// variance path); the exponential branch's 1 - U is N(-z), so that a large z is a large v' in
// either branch and the path stays a monotone function of its leading dimensions
// (docs/quasi-monte-carlo.md).
template <typename Real, bool Whole, typename NormalStream, typename Step>
MCPRICE_HD MCPRICE_INLINE void heston_quasi_variance_block(int k, int count, NormalStream& rng, Step& step)
{
  auto const z = mcprice::rng::normals4<Real>(rng);
  Real const zs[4] = {z.x, z.y, z.z, z.w};
  MCPRICE_UNROLL
  for (int j = 0; j < 4; ++j) {
    if (Whole || j < count) {
      conditional_draw<Real> const d{zs[j], math::standard_normal_cdf(-zs[j]), math::standard_normal_cdf(zs[j])};
      step(k + j, d, Whole ? j == 3 : j + 1 == count);
    }
  }
}

// One Philox block's four steps k..k+3 of a variance path (the first `count` of them unless
// Whole): step(k + j, draw, fold), fold after the fourth step and after the path's last.
template <typename Real, bool Whole, typename NormalStream, typename Step>
MCPRICE_HD MCPRICE_INLINE void heston_variance_block(int k, int count, NormalStream& rng, Step& step)
{
  if constexpr (rng::is_quasi_v<NormalStream>) {
    heston_quasi_variance_block<Real, Whole>(k, count, rng, step);
    return;
  }
  auto const bits = rng.next_uint4();
  std::uint32_t const b[4] = {bits.x, bits.y, bits.z, bits.w};
  if constexpr (std::is_same_v<Real, float>) {
    MCPRICE_UNROLL
    for (int j = 0; j < 4; ++j) {
      if (Whole || j < count) {
        bits_draw const d = draw_from_bits(b[j]);
        step(k + j, conditional_draw<float>{d.z, d.uniform, d.complement}, Whole ? j == 3 : j + 1 == count);
      }
    }
  } else {
    auto const z = mcprice::rng::normals4<Real>(rng);
    Real const zs[4] = {z.x, z.y, z.z, z.w};
    MCPRICE_UNROLL
    for (int j = 0; j < 4; ++j) {
      if (Whole || j < count) {
        basic_qe_paired_draw<Real> const d{zs[j], b[j]};
        step(k + j, conditional_draw<Real>{d.z, d.upper(), d.antithetic().upper()}, Whole ? j == 3 : j + 1 == count);
      }
    }
  }
}

// Calls step(k, draw, fold) for each step of a Heston European's variance path; fold: the
// terminal's corrections are folded after this step (every fourth step and the last). Whole
// blocks first, without a test per step, then the remainder.
template <typename Real, typename NormalStream, typename Step>
MCPRICE_HD MCPRICE_INLINE void for_heston_variance_draws(int steps, NormalStream& rng, Step&& step)
{
  int k = 0;
  for (; k + 4 <= steps; k += 4) heston_variance_block<Real, true>(k, 4, rng, step);
  if (k < steps) heston_variance_block<Real, false>(k, steps - k, rng, step);
}

// sqrt(x) + add for x > 0 (quick_sqrt without its test for zero), on the GPU one FMA on the
// hardware's reciprocal root: written out, so that no kernel contracts it differently.
MCPRICE_HD MCPRICE_INLINE float plus_sqrt(float x, float add)
{
#if defined(__CUDA_ARCH__)
  return fmaf(x, rsqrtf(x), add);
#else
  return add + std::sqrt(x);
#endif
}
MCPRICE_HD MCPRICE_INLINE double plus_sqrt(double x, double add) { return add + ::sqrt(x); }

// What a variance path leaves for the European: the log spot's conditional mean and variance.
// The martingale corrections' logarithms are gathered as a product (`corrections`, whose
// logarithm's half belongs to x) and moved into x every few steps (fold): one logarithm per
// four steps instead of one a step, and the product stays near 1.
template <typename Real>
struct heston_terminal {
  Real x{0};            // E[ln(S_T / S_0) | variances], less ln(corrections) / 2
  Real w{0};            // Var[ln(S_T / S_0) | variances]
  Real corrections{1};  // product of 1 / E[exp(A v')]^2 over the steps not yet folded
  MCPRICE_HD MCPRICE_INLINE void fold()
  {
    x = math::fma(Real(0.5), small_log1p(corrections - Real(1)), x);  // corrections: a rounded product
    corrections = Real(1);
  }
};

// One QE step of the variance (heston_qe_step's scheme and coefficients) that adds the log
// spot's conditional mean and variance to `end`. Step i adds mean drift + K0* + K1 v + K2 v'
// with K0* = -ln E[exp(A v')] - (K1 + K3/2) v, i.e. drift - ln E[exp(A v')] - K3 v / 2 + K2 v',
// and variance K3 (v + v'). E[exp(A v')] is exp(A b^2 a / q) / sqrt(q) (quadratic branch,
// q = 1 - 2 A a) or (beta - A p) / (beta - A) (exponential branch); its logarithm goes to the
// product: q, or ((beta - A) / (beta - A p))^2. Where E[exp(A v')] diverges, K0 is the
// uncorrected one, as in the path scheme.
//
// Both branches are worked out and the step selects, with no jump: where the variance sits
// near zero (the peers' case violates the Feller condition) nearly every warp has lanes in
// both, so a warp ran both anyway, each behind a branch, and each with reciprocals of its own.
// Here the branches share their three reciprocals, whose operands are selected: 1/s^2 or
// 1/(s^2 + m^2) (so that 2 m^2 r is 2/psi or 1 - p), 1/(1 + b^2) or 1/beta, and the
// correction's 1/q or 1/(beta - A p). A lane's unused branch may make a NaN (a root of a
// negative number); it is never selected. Every product that meets an addition is a
// rounded_product or an explicit FMA: the fused, two-phase and Greek kernels inline this step
// in different surroundings, and must not contract it differently.
template <bool Regular = false, typename Draw, typename Real>
MCPRICE_HD MCPRICE_INLINE void heston_conditional_step(Real xi, const basic_heston_step<Real>& s, Real& v,
                                                       const Draw& draw, heston_terminal<Real>& end)
{
  Real const zero(0);
  Real const one(1);
  Real const m = math::fma(v, s.e, s.m0);
  if (!Regular && !(xi > static_cast<Real>(heston_min_xi) && m > zero)) {
    // No vol of vol (or a variance absorbed at zero): the step is log-normal.
    Real const var = rounded_product(rounded_product(Real(0.5), v + m), s.dt);
    end.x = end.x + (s.log_forward - rounded_product(Real(0.5), var));
    end.w = end.w + var;
    v = m;
    return;
  }
  Real const s2 = math::fma(v, s.s2_v, s.s2_0);
  Real const m2 = rounded_product(m, m);
  bool const quadratic = s2 <= Real(qe_psi_switch) * m2;
  Real const r1 = quick_divide(one, quadratic ? s2 : s2 + m2);
  Real const t = rounded_product(Real(2) * m2, r1);    // quadratic: 2 / psi (>= 4/3); exponential: 1 - p
  Real const beta = rounded_product(Real(2) * m, r1);  // exponential: (1 - p) / m
  Real const t_less_one = t - one;
  Real const b2 = plus_sqrt(t * t_less_one, t_less_one);  // quadratic (b^2 >= 1/3)
  Real const r2 = quick_divide(one, quadratic ? one + b2 : beta);
  Real const a = m * r2;  // quadratic
  Real const zb = plus_sqrt(b2, draw.z);
  Real const upper = draw.upper();  // 1 - U
  Real const drawn = upper >= t ? zero : rounded_product(quick_log(t * quick_divide(one, upper)), r2);
  Real const v_next = quadratic ? rounded_product(a * zb, zb) : drawn;
  Real const q = math::fma(Real(-2) * s.a, a, one);
  Real const beta_less_a = beta - s.a;
  Real const r3 = quick_divide(one, quadratic ? q : math::fma(s.a, t, beta_less_a));
  // quadratic: the step's constant; exponential: g
  Real const y = rounded_product(quadratic ? -(s.a * b2 * a) : beta_less_a, r3);
  bool const corrected = Regular || (quadratic ? q > zero : s.a < beta);
  Real const factor = quadratic ? q : y * y;
  end.corrections = corrected ? rounded_product(end.corrections, factor) : end.corrections;
  Real const c = corrected ? (quadratic ? y : zero) : s.k0_fallback;  // the step's constant
  Real const cv = corrected ? Real(-0.5) * s.k3 : s.k1;               // v's coefficient
  end.x = math::fma(s.k2, v_next, math::fma(cv, v, end.x + (s.log_forward + c)));
  end.w = math::fma(s.k3, v + v_next, end.w);
  v = v_next;
}

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

// Whether every one of a trade's steps is regular: a vol of vol, E[v'] >= m0 > 0 with m^2 a
// normal float, Var[v'] > 0, and A <= 0 (so q = 1 - 2 A a >= 1 and A < beta: the correction
// exists in both branches). Equity's negative correlation makes A negative.
template <typename Real>
inline bool heston_qe_regular(Real xi, const basic_heston_step<Real>* steps, int count)
{
  if (!(xi > static_cast<Real>(heston_min_xi))) return false;
  for (int i = 0; i < count; ++i) {
    const basic_heston_step<Real>& s = steps[i];
    if (!(s.m0 > Real(1e-18) && s.s2_0 >= std::numeric_limits<Real>::min() && s.a <= Real(0))) return false;
  }
  return true;
}

// Bates Europeans: given the variance path and the number N of jumps to expiry, the log spot is
// still normal, its mean moved by N times the jumps' mean and its variance by N times their
// variance (the compensator is in the steps' drifts), so the jump sizes are integrated out too.
// N takes one raw draw a path, after the variance's; the antithetic path takes its complement.
template <typename Real>
MCPRICE_HD MCPRICE_INLINE void add_jump_count(const basic_jump_law<Real>& law, Real mean_count, std::uint32_t bits,
                                              heston_terminal<Real>& end)
{
  Real const n = static_cast<Real>(poisson_count(mean_count, bits));
  end.x = math::fma(n, law.mean, end.x);
  end.w = math::fma(n, rounded_product(law.vol, law.vol), end.w);
}

// The trade's jump counts to expiry into path a and (Antithetic) path b: one raw draw after the
// variance's, its complement for b. Every route draws them here.
template <bool Antithetic, typename Real, typename Rng>
MCPRICE_HD MCPRICE_INLINE void add_jump_counts(const basic_heston_trade<Real>& h, Rng& rng, heston_terminal<Real>& a,
                                               heston_terminal<Real>& b)
{
  std::uint32_t const bits = rng.next_uint4().x;
  Real const mean_count = rounded_product(h.jumps.intensity, h.maturity);
  add_jump_count(h.jumps, mean_count, bits, a);
  if constexpr (Antithetic) add_jump_count(h.jumps, mean_count, ~bits, b);
}

// One sample (a path, or an antithetic pair) of a Heston European.
template <typename NormalStream, bool Antithetic, bool Regular, typename Real>
MCPRICE_HD MCPRICE_INLINE Real heston_european_paths(const basic_heston_trade<Real>& h,
                                                     const basic_heston_step<Real>* grid, std::uint64_t group)
{
  const basic_path_gbm_trade<Real>& t = h;
  variance_stream<NormalStream, Real> rng(t.key, group);
  heston_terminal<Real> a{};
  heston_terminal<Real> b{};
  Real va = h.v0;
  Real vb = h.v0;
  const basic_heston_step<Real>* steps = grid + t.first_step;
  for_heston_variance_draws<Real>(t.steps, rng, [&](int k, const conditional_draw<Real>& draw, bool fold) {
    basic_heston_step<Real> const s = steps[k];
    heston_conditional_step<Regular>(h.xi, s, va, draw, a);
    if constexpr (Antithetic) heston_conditional_step<Regular>(h.xi, s, vb, draw.antithetic(), b);
    if (fold) {
      a.fold();
      if constexpr (Antithetic) b.fold();
    }
  });
  if (t.jumps.intensity > Real(0)) add_jump_counts<Antithetic>(h, rng, a, b);
  Real const up = conditional_european_payoff(t, a.x, a.w);
  if constexpr (!Antithetic) return up;
  else return Real(0.5) * (up + conditional_european_payoff(t, b.x, b.w));
}

template <typename NormalStream, bool Antithetic, typename Real>
MCPRICE_HD MCPRICE_INLINE Real heston_european_sample(const basic_heston_trade<Real>& h,
                                                      const basic_heston_step<Real>* grid, std::uint64_t group)
{
  if (h.qe_regular) return heston_european_paths<NormalStream, Antithetic, true>(h, grid, group);
  return heston_european_paths<NormalStream, Antithetic, false>(h, grid, group);
}

}  // namespace mcprice
