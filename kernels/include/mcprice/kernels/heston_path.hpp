#pragma once
// Heston paths for every single-asset product: Andersen's quadratic-exponential (QE) scheme for
// the variance, with the martingale correction of the log-spot step (L. Andersen, "Efficient
// Simulation of the Heston Stochastic Volatility Model", 2008), gamma1 = gamma2 = 1/2. The
// path state (Asian sums, barrier survival with the bridge on the step's integrated variance,
// lookback extremes) is the GBM path engine's.
#include "mcprice/kernels/path_gbm.hpp"

#include <cmath>

namespace mcprice {

// Below this vol of vol the variance is taken as deterministic (its mean).
inline constexpr double heston_min_xi = 1e-6;

// One step of a Heston trade's grid. Everything that depends only on the step (its length and
// the model's parameters) is worked out once on the host, in double (make_heston_step), so a
// path's step is a few multiply-adds, two square roots and a logarithm.
struct alignas(16) heston_step {
  float dt;
  float log_forward;  // ln(F(t_i) / F(t_{i-1})): the rates' and dividends' drift of the step
  float hit_value;    // P(0,t_i)/P(0,T)
  float e;            // exp(-kappa dt)
  float m0;           // theta (1 - e): E[v'] = m0 + e v
  float s2_v;         // xi^2 e (1 - e) / kappa: Var[v'] = s2_v v + s2_0
  float s2_0;         // theta xi^2 (1 - e)^2 / (2 kappa)
  float k1, k2, k3;   // Andersen's K1, K2, K3 (gamma1 = gamma2 = 1/2); K4 = K3
  float a;            // A = K2 + K3/2, the exponent of the martingale correction
  float k1k3;         // K1 + K3/2
  float k0_fallback;  // -rho kappa theta dt / xi: the uncorrected K0 where E[exp(A v')] diverges
  std::uint8_t fixing;
};

// The step's coefficients in double; kappa -> 0 takes the limits (1 - e)/kappa -> dt.
inline heston_step make_heston_step(double dt, double log_forward, double hit_value, bool fixing, double kappa,
                                    double theta, double xi, double rho)
{
  double const kdt = kappa * dt;
  double const e = std::exp(-kdt);
  // (1 - e)/kappa and (1 - e)^2/(2 kappa), by series where kappa dt is tiny.
  double const one_minus_e_over_kappa = kdt > 1e-6 ? -std::expm1(-kdt) / kappa : dt * (1.0 - 0.5 * kdt);
  double const sq_over_2kappa = kdt > 1e-6 ? std::expm1(-kdt) * std::expm1(-kdt) / (2.0 * kappa) : 0.5 * kappa * dt * dt;
  heston_step s{};
  s.dt = static_cast<float>(dt);
  s.log_forward = static_cast<float>(log_forward);
  s.hit_value = static_cast<float>(hit_value);
  s.e = static_cast<float>(e);
  s.m0 = static_cast<float>(-theta * std::expm1(-kdt));
  s.s2_v = static_cast<float>(xi * xi * e * one_minus_e_over_kappa);
  s.s2_0 = static_cast<float>(theta * xi * xi * sq_over_2kappa);
  if (xi > heston_min_xi) {
    double const k1 = 0.5 * dt * (kappa * rho / xi - 0.5) - rho / xi;
    double const k2 = 0.5 * dt * (kappa * rho / xi - 0.5) + rho / xi;
    double const k3 = 0.5 * dt * (1.0 - rho * rho);
    s.k1 = static_cast<float>(k1);
    s.k2 = static_cast<float>(k2);
    s.k3 = static_cast<float>(k3);
    s.a = static_cast<float>(k2 + 0.5 * k3);
    s.k1k3 = static_cast<float>(k1 + 0.5 * k3);
    s.k0_fallback = static_cast<float>(-rho * kappa * theta * dt / xi);
  }
  s.fixing = fixing ? 1 : 0;
  return s;
}

// The path record (product, payoff; first_step and steps index the heston_step table) and the
// asset's Heston parameters.
struct heston_trade : path_gbm_trade {
  float v0, kappa, theta, xi, rho;
  float maturity;  // T (Greeks: the rate scenarios' hit discounts)
  float rate;      // r(T) (Greeks: theta's discount)
};

// The psi threshold between the quadratic and the exponential branch (Andersen's 1.5).
inline constexpr float qe_psi_switch = 1.5F;

// Quotients whose operands stay far from float's range limits: one reciprocal and a product on
// the GPU (about 2 ulp) instead of an IEEE division's dozen instructions.
MCPRICE_HD MCPRICE_INLINE float quick_divide(float a, float b)
{
#if defined(__CUDA_ARCH__)
  return __fdividef(a, b);
#else
  return a / b;
#endif
}

// sqrt(x) for x >= 0 as x / sqrt(x) from the hardware reciprocal root (about 2 ulp) instead of
// the correctly rounded root's refinement steps.
MCPRICE_HD MCPRICE_INLINE float quick_sqrt(float x)
{
#if defined(__CUDA_ARCH__)
  return x > 0.0F ? x * rsqrtf(x) : 0.0F;
#else
  return x > 0.0F ? std::sqrt(x) : 0.0F;
#endif
}

// ln(x) where a small error relative to 1 is harmless (the exponential branch's draw of v':
// an absolute error of 4e-7 near x = 1 moves v' by 4e-7 / beta): the hardware logarithm
// and a product on the GPU instead of the accurate logf's dozen instructions.
MCPRICE_HD MCPRICE_INLINE float quick_log(float x)
{
#if defined(__CUDA_ARCH__)
  return __logf(x);
#else
  return std::log(x);
#endif
}

// ln(1 + w). Over |w| <= 1/32, where the correction's argument lies for steps of up to a few
// weeks, the series to w^6 (truncation below 1e-10 relative, six FMAs); elsewhere log1pf, whose
// special-case handling costs a GPU about thirty instructions a step.
MCPRICE_HD MCPRICE_INLINE float small_log1p(float w)
{
  if (fabsf(w) > 0.03125F) return log1pf(w);
  float p = fmaf(w, -1.0F / 6.0F, 0.2F);
  p = fmaf(w, p, -0.25F);
  p = fmaf(w, p, 1.0F / 3.0F);
  p = fmaf(w, p, -0.5F);
  p = fmaf(w, p, 1.0F);
  return rounded_product(w, p);
}

// The variance's random input to a QE step. The quadratic branch takes a normal z, the
// exponential branch a uniform U (through 1 - U, `upper`); a step uses one or the other, so
// each needs only the right law and independence from the log spot's normal.
//
// A Heston path draws both: a normal from the Box-Muller pair it shares with the log spot, and
// a uniform from a raw 32-bit Philox output. Deriving U from z instead (U = N(z)) costs the
// exponential branch a normal CDF, about 45 instructions; where the variance sits near zero some
// lanes of a warp take that branch and the whole warp waits for them. A raw output costs every
// lane a dozen instructions of Philox. The antithetic path takes -z and the complement of the
// 32 bits, so its U is exactly 1 - U.
struct qe_paired_draw {
  float z;
  std::uint32_t bits;
  MCPRICE_HD MCPRICE_INLINE float upper() const
  {
    // (bits + 1/2) / 2^32: never 0; a float of bits near 2^32 may round to 1, which only means v' = 0.
    return fmaf(static_cast<float>(bits), 2.3283064e-10F, 1.1641532e-10F);
  }
  MCPRICE_HD MCPRICE_INLINE qe_paired_draw antithetic() const { return {-z, ~bits}; }
};

// The variance's input as one normal (the multi-asset exercise walks): U = N(z), 1 - U = N(-z),
// which keeps its precision in the tail, where v' is large. Those walks keep it: drawing raw
// bits there as well (a second feeder beside the normals') made the 10-asset STAC-A2-style
// workload slower on the H200, 3.6-3.7 -> 4.1 s, and the 5-asset one no faster.
struct qe_normal_draw {
  float z;
  MCPRICE_HD MCPRICE_INLINE float upper() const { return standard_normal_cdf(-z); }
};

// One QE step of the variance and the matching log-spot increment (xi: the vol of vol).
//
// The two branches only work out their own parameters; the martingale correction's logarithm
// is taken once after them. Written as ln(1 + w), both branches' arguments are near 1 (w is
// -2 A a, or (1 - p) A / (beta - A)), which log1p keeps exact where ln of a rounded 1 + w would
// lose w's digits. One logarithm after the branches rather than one in each matters on the GPU:
// where the variance sits near zero some lanes of a warp take each branch, and the warp runs
// both (the peers' case violates the Feller condition).
template <typename Draw>
MCPRICE_HD MCPRICE_INLINE void heston_qe_step(float xi, const heston_step& s, float& v, const Draw& draw, float z_x,
                                              float& dx, float& integrated_variance)
{
  float const m = fmaf(v, s.e, s.m0);
  float v_next = m;
  if (xi > static_cast<float>(heston_min_xi) && m > 0.0F) {
    float const s2 = fmaf(v, s.s2_v, s.s2_0);
    float const m2 = rounded_product(m, m);
    float w = 0.0F;            // ln(1 + w) is the correction's logarithm
    float weight = 0.0F;       // its coefficient: 1/2 (quadratic) or -1 (exponential)
    float quadratic_term = 0.0F;  // -A b^2 a / (1 - 2 A a)
    bool finite = false;       // E[exp(A v')] < infinity
    if (s2 <= qe_psi_switch * m2) {
      // Quadratic branch: v' = a (b + Z)^2, E[exp(A v')] = exp(A b^2 a / q) / sqrt(q), q = 1 - 2 A a.
      float const inv = quick_divide(2.0F * m2, s2);  // 2 / psi
      float const b2 = inv - 1.0F + quick_sqrt(rounded_product(inv, inv - 1.0F));
      float const a = quick_divide(m, 1.0F + b2);
      float const zb = quick_sqrt(b2) + draw.z;
      v_next = rounded_product(rounded_product(a, zb), zb);
      w = -rounded_product(2.0F * s.a, a);
      float const q = 1.0F + w;
      finite = q > 0.0F;
      quadratic_term = -quick_divide(rounded_product(rounded_product(s.a, b2), a), q);
      weight = 0.5F;
    } else {
      // Exponential branch: a mass p at zero and an exponential tail of rate beta = (1 - p) / m;
      // E[exp(A v')] = p + beta (1 - p) / (beta - A) = 1 + (1 - p) A / (beta - A).
      float const p = quick_divide(s2 - m2, s2 + m2);  // (psi - 1) / (psi + 1)
      float const keep = 1.0F - p;
      float const beta = quick_divide(keep, m);
      float const upper = draw.upper();  // 1 - U
      v_next = upper >= keep ? 0.0F : quick_divide(quick_log(quick_divide(keep, upper)), beta);
      finite = s.a < beta;
      w = quick_divide(rounded_product(keep, s.a), beta - s.a);
      weight = -1.0F;
    }
    float const k0 = finite ? rounded_product(weight, small_log1p(w)) + quadratic_term - rounded_product(s.k1k3, v)
                            : s.k0_fallback;
    // Products rounded before they are added (rounded_product.hpp): the Greek kernel inlines
    // this step next to others and must price with the same bits.
    dx = s.log_forward + k0 + rounded_product(s.k1, v) + rounded_product(s.k2, v_next) +
         rounded_product(quick_sqrt(rounded_product(s.k3, v + v_next)), z_x);
  } else {
    // No vol of vol (or a variance absorbed at zero): the variance follows its mean and the
    // step is log-normal.
    float const var = rounded_product(rounded_product(0.5F, v + v_next), s.dt);
    dx = s.log_forward - rounded_product(0.5F, var) + rounded_product(sqrtf(fmaxf(var, 0.0F)), z_x);
  }
  integrated_variance = rounded_product(rounded_product(0.5F, v + v_next), s.dt);
  v = v_next;
}

MCPRICE_HD MCPRICE_INLINE void heston_qe_step(const heston_trade& h, const heston_step& s, float& v,
                                              const qe_paired_draw& draw, float z_x, float& dx,
                                              float& integrated_variance)
{
  heston_qe_step(h.xi, s, v, draw, z_x, dx, integrated_variance);
}

// Calls step(k, draw, z_x, u) for each step of a Heston path: the variance's draw (a normal and
// 32 raw bits), the log spot's normal, and for continuous lookbacks a third normal (the
// bridge's extremum). Four steps take two Box-Muller blocks (variance and log-spot normals in
// pairs) and one raw block; continuous lookbacks take their normals one by one and their bits
// four steps at a time. Every Heston kernel (fused, two-phase, Greeks) walks its normals here,
// so a trade's numbers do not depend on the route.
template <path_product Product, typename NormalStream, typename Step>
MCPRICE_HD MCPRICE_INLINE void for_heston_step_normals(const path_gbm_trade& t, NormalStream& rng, Step&& step)
{
  if (Product == path_product::lookback && t.continuous) {
    normal_feeder<NormalStream> normals{rng};
    decltype(rng.next_uint4()) bits{};
    for (int k = 0; k < t.steps; ++k) {
      float const z_v = normals.next();
      float const z_x = normals.next();
      if (k % 4 == 0) bits = rng.next_uint4();
      std::uint32_t const b = k % 4 == 0 ? bits.x : k % 4 == 1 ? bits.y : k % 4 == 2 ? bits.z : bits.w;
      step(k, qe_paired_draw{z_v, b}, z_x, normals.next());
    }
    return;
  }
  int k = 0;
  for (; k + 4 <= t.steps; k += 4) {
    auto const first = rng.next4();
    auto const second = rng.next4();
    auto const bits = rng.next_uint4();
    step(k, qe_paired_draw{first.x, bits.x}, first.y, 0.0F);
    step(k + 1, qe_paired_draw{first.z, bits.y}, first.w, 0.0F);
    step(k + 2, qe_paired_draw{second.x, bits.z}, second.y, 0.0F);
    step(k + 3, qe_paired_draw{second.z, bits.w}, second.w, 0.0F);
  }
  if (k < t.steps) {
    auto const first = rng.next4();
    auto const second = k + 2 < t.steps ? rng.next4() : decltype(rng.next4()){};
    auto const bits = rng.next_uint4();
    step(k, qe_paired_draw{first.x, bits.x}, first.y, 0.0F);
    if (k + 1 < t.steps) step(k + 1, qe_paired_draw{first.z, bits.y}, first.w, 0.0F);
    if (k + 2 < t.steps) step(k + 2, qe_paired_draw{second.x, bits.z}, second.y, 0.0F);
  }
}

template <typename NormalStream, path_product Product, bool Antithetic>
MCPRICE_HD MCPRICE_INLINE float heston_sample(const heston_trade& h, const heston_step* grid, std::uint64_t group)
{
  const path_gbm_trade& t = h;
  NormalStream rng(t.key, group);
  path_state a = path_state::start(t);
  path_state b = a;
  float va = h.v0;
  float vb = h.v0;
  const heston_step* steps = grid + t.first_step;
  auto const step = [&](int k, const qe_paired_draw& draw, float z_x, float u) {
    heston_step const s = steps[k];
    float dx = 0.0F;
    float var = 0.0F;
    heston_qe_step(h, s, va, draw, z_x, dx, var);
    a.move<Product>(t, t.log_barrier, dx, var, s.fixing != 0, s.hit_value, u);
    if constexpr (Antithetic) {
      heston_qe_step(h, s, vb, draw.antithetic(), -z_x, dx, var);
      b.move<Product>(t, t.log_barrier, dx, var, s.fixing != 0, s.hit_value, u);
    }
  };
  for_heston_step_normals<Product>(t, rng, step);
  float const up = a.payoff<Product>(t);
  if constexpr (!Antithetic) return up;
  else return 0.5F * (up + b.payoff<Product>(t));
}

// EuropeansOnly: the trade is known to be a European, so no dispatch over the path products
// (the Europeans kernel; a kernel's registers are those of its largest variant).
template <typename NormalStream, bool Antithetic, bool EuropeansOnly>
MCPRICE_HD MCPRICE_INLINE float heston_sample_of(const heston_trade& h, const heston_step* grid, std::uint64_t group)
{
  if constexpr (EuropeansOnly) {
    return heston_sample<NormalStream, path_product::european, Antithetic>(h, grid, group);
  } else {
    return with_path_product(h.product, [&](auto product) {
      return heston_sample<NormalStream, decltype(product)::value, Antithetic>(h, grid, group);
    });
  }
}

template <typename NormalStream, bool EuropeansOnly = false>
MCPRICE_HD MCPRICE_INLINE moments heston_lane(const heston_trade& h, const heston_step* grid, std::int64_t block, int lane)
{
  return own_subsequence_lane(h.samples, block, lane, [&](std::uint64_t subsequence) {
    return h.antithetic ? heston_sample_of<NormalStream, true, EuropeansOnly>(h, grid, subsequence)
                        : heston_sample_of<NormalStream, false, EuropeansOnly>(h, grid, subsequence);
  });
}

}  // namespace mcprice
