#pragma once
// Heston paths for every single-asset product: Andersen's quadratic-exponential (QE) scheme for
// the variance, with the martingale correction of the log-spot step (L. Andersen, "Efficient
// Simulation of the Heston Stochastic Volatility Model", 2008), gamma1 = gamma2 = 1/2. The
// path state (Asian sums, barrier survival with the bridge on the step's integrated variance,
// lookback extremes) is the GBM path engine's.
#include "mcprice/kernels/models/path_gbm.hpp"

#include <cmath>

namespace mcprice {

// Below this vol of vol the variance is taken as deterministic (its mean).
inline constexpr double heston_min_xi = 1e-6;

// One step of a Heston trade's grid. Everything that depends only on the step (its length and
// the model's parameters) is worked out once on the host, in double (make_heston_step), so a
// path's step is a few multiply-adds, two square roots and a logarithm. Real: the path
// precision (path_gbm.hpp).
template <typename Real>
struct alignas(16) basic_heston_step {
  Real dt;
  Real log_forward;  // ln(F(t_i) / F(t_{i-1})): the rates' and dividends' drift of the step
  Real hit_value;    // P(0,t_i)/P(0,T)
  Real e;            // exp(-kappa dt)
  Real m0;           // theta (1 - e): E[v'] = m0 + e v
  Real s2_v;         // xi^2 e (1 - e) / kappa: Var[v'] = s2_v v + s2_0
  Real s2_0;         // theta xi^2 (1 - e)^2 / (2 kappa)
  Real k1, k2, k3;   // Andersen's K1, K2, K3 (gamma1 = gamma2 = 1/2); K4 = K3
  Real a;            // A = K2 + K3/2, the exponent of the martingale correction
  Real k1k3;         // K1 + K3/2
  Real k0_fallback;  // -rho kappa theta dt / xi: the uncorrected K0 where E[exp(A v')] diverges
  std::uint8_t fixing;
};
using heston_step = basic_heston_step<float>;

// An observation row of a Heston step table keeps its levels in dt and log_forward.
template <typename Real>
MCPRICE_HD MCPRICE_INLINE auto observation_levels(const basic_heston_step<Real>& r)
{
  return basic_call_levels<Real>{r.dt, r.log_forward};
}
template <typename Real>
void set_observation_levels(basic_heston_step<Real>& r, Real call, Real coupon)
{
  r.dt = call;
  r.log_forward = coupon;
}
using heston_step_f64 = basic_heston_step<double>;

// The variance's decay over a step, exp(-kappa dt) and expm1(-kappa dt): the costly part of a
// step's coefficients, and the same for every step of equal kappa dt (a grid's steps take a
// handful of distinct lengths), so a host loop can keep a few (make_exercise_job's decay_cache).
struct heston_decay {
  double e;    // exp(-kappa dt)
  double em1;  // expm1(-kappa dt)
};
inline heston_decay heston_decay_of(double kdt) { return {std::exp(-kdt), std::expm1(-kdt)}; }

// The step's coefficients in double; kappa -> 0 takes the limits (1 - e)/kappa -> dt. `d`:
// heston_decay_of(kappa * dt).
template <typename Real = float>
inline basic_heston_step<Real> make_heston_step(double dt, double log_forward, double hit_value, bool fixing,
                                                double kappa, double theta, double xi, double rho,
                                                const heston_decay& d)
{
  double const kdt = kappa * dt;
  double const e = d.e;
  // (1 - e)/kappa and (1 - e)^2/(2 kappa), by series where kappa dt is tiny.
  double const one_minus_e_over_kappa = kdt > 1e-6 ? -d.em1 / kappa : dt * (1.0 - 0.5 * kdt);
  double const sq_over_2kappa = kdt > 1e-6 ? d.em1 * d.em1 / (2.0 * kappa) : 0.5 * kappa * dt * dt;
  basic_heston_step<Real> s{};
  s.dt = static_cast<Real>(dt);
  s.log_forward = static_cast<Real>(log_forward);
  s.hit_value = static_cast<Real>(hit_value);
  s.e = static_cast<Real>(e);
  s.m0 = static_cast<Real>(-theta * d.em1);
  s.s2_v = static_cast<Real>(xi * xi * e * one_minus_e_over_kappa);
  s.s2_0 = static_cast<Real>(theta * xi * xi * sq_over_2kappa);
  if (xi > heston_min_xi) {
    double const k1 = 0.5 * dt * (kappa * rho / xi - 0.5) - rho / xi;
    double const k2 = 0.5 * dt * (kappa * rho / xi - 0.5) + rho / xi;
    double const k3 = 0.5 * dt * (1.0 - rho * rho);
    s.k1 = static_cast<Real>(k1);
    s.k2 = static_cast<Real>(k2);
    s.k3 = static_cast<Real>(k3);
    s.a = static_cast<Real>(k2 + 0.5 * k3);
    s.k1k3 = static_cast<Real>(k1 + 0.5 * k3);
    s.k0_fallback = static_cast<Real>(-rho * kappa * theta * dt / xi);
  }
  s.fixing = fixing ? 1 : 0;
  return s;
}

template <typename Real = float>
inline basic_heston_step<Real> make_heston_step(double dt, double log_forward, double hit_value, bool fixing,
                                                double kappa, double theta, double xi, double rho)
{
  return make_heston_step<Real>(dt, log_forward, hit_value, fixing, kappa, theta, xi, rho, heston_decay_of(kappa * dt));
}

// The path record (product, payoff; first_step and steps index the heston_step table) and the
// asset's Heston parameters.
template <typename Real>
struct basic_heston_trade : basic_path_gbm_trade<Real> {
  Real v0, kappa, theta, xi, rho;
  Real maturity;            // T (Greeks: the rate scenarios' hit discounts)
  Real rate;                // r(T) (Greeks: theta's discount)
  std::uint8_t qe_regular;  // every pricing step is regular (heston_qe_regular): Europeans step without tests
};
using heston_trade = basic_heston_trade<float>;
using heston_trade_f64 = basic_heston_trade<double>;

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
// Double paths exist for validation: their quick_* are the exact operations.
MCPRICE_HD MCPRICE_INLINE double quick_divide(double a, double b) { return a / b; }

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
MCPRICE_HD MCPRICE_INLINE double quick_sqrt(double x) { return x > 0.0 ? ::sqrt(x) : 0.0; }

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
MCPRICE_HD MCPRICE_INLINE double quick_log(double x) { return ::log(x); }

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
// In double the series would need twice the terms; log1p is the validation path's choice.
MCPRICE_HD MCPRICE_INLINE double small_log1p(double w) { return ::log1p(w); }

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
template <typename Real>
struct basic_qe_paired_draw {
  Real z;
  std::uint32_t bits;
  MCPRICE_HD MCPRICE_INLINE Real upper() const
  {
    // (bits + 1/2) / 2^32: never 0; a float of bits near 2^32 may round to 1, which only means
    // v' = 0 (in double it is exact).
    if constexpr (std::is_same_v<Real, float>) return fmaf(static_cast<float>(bits), 2.3283064e-10F, 1.1641532e-10F);
    else return (static_cast<double>(bits) + 0.5) * 2.3283064365386963e-10;
  }
  MCPRICE_HD MCPRICE_INLINE basic_qe_paired_draw antithetic() const { return {-z, ~bits}; }
};
using qe_paired_draw = basic_qe_paired_draw<float>;

// The variance's input as one normal (the multi-asset exercise walks): U = N(z), 1 - U = N(-z),
// which keeps its precision in the tail, where v' is large. Those walks keep it: drawing raw
// bits there as well (a second feeder beside the normals') made the 10-asset STAC-A2-style
// workload slower on the H200, 3.6-3.7 -> 4.1 s, and the 5-asset one no faster.
template <typename Real>
struct basic_qe_normal_draw {
  Real z;
  MCPRICE_HD MCPRICE_INLINE Real upper() const { return standard_normal_cdf(-z); }
};
using qe_normal_draw = basic_qe_normal_draw<float>;

// One QE step of the variance and the matching log-spot increment (xi: the vol of vol).
//
// The two branches only work out their own parameters; the martingale correction's logarithm
// is taken once after them. Written as ln(1 + w), both branches' arguments are near 1 (w is
// -2 A a, or (1 - p) A / (beta - A)), which log1p keeps exact where ln of a rounded 1 + w would
// lose w's digits. One logarithm after the branches rather than one in each matters on the GPU:
// where the variance sits near zero some lanes of a warp take each branch, and the warp runs
// both (the peers' case violates the Feller condition).
template <typename Draw, typename Real>
MCPRICE_HD MCPRICE_INLINE void heston_qe_step(Real xi, const basic_heston_step<Real>& s, Real& v, const Draw& draw,
                                              Real z_x, Real& dx, Real& integrated_variance)
{
  Real const zero(0);
  Real const one(1);
  Real const m = math::fma(v, s.e, s.m0);
  Real v_next = m;
  if (xi > static_cast<Real>(heston_min_xi) && m > zero) {
    Real const s2 = math::fma(v, s.s2_v, s.s2_0);
    Real const m2 = rounded_product(m, m);
    Real w = zero;               // ln(1 + w) is the correction's logarithm
    Real weight = zero;          // its coefficient: 1/2 (quadratic) or -1 (exponential)
    Real quadratic_term = zero;  // -A b^2 a / (1 - 2 A a)
    bool finite = false;         // E[exp(A v')] < infinity
    if (s2 <= Real(qe_psi_switch) * m2) {
      // Quadratic branch: v' = a (b + Z)^2, E[exp(A v')] = exp(A b^2 a / q) / sqrt(q), q = 1 - 2 A a.
      Real const inv = quick_divide(Real(2) * m2, s2);  // 2 / psi
      Real const b2 = inv - one + quick_sqrt(rounded_product(inv, inv - one));
      Real const a = quick_divide(m, one + b2);
      Real const zb = quick_sqrt(b2) + draw.z;
      v_next = rounded_product(rounded_product(a, zb), zb);
      w = -rounded_product(Real(2) * s.a, a);
      Real const q = one + w;
      finite = q > zero;
      quadratic_term = -quick_divide(rounded_product(rounded_product(s.a, b2), a), q);
      weight = Real(0.5);
    } else {
      // Exponential branch: a mass p at zero and an exponential tail of rate beta = (1 - p) / m;
      // E[exp(A v')] = p + beta (1 - p) / (beta - A) = 1 + (1 - p) A / (beta - A).
      Real const p = quick_divide(s2 - m2, s2 + m2);  // (psi - 1) / (psi + 1)
      Real const keep = one - p;
      Real const beta = quick_divide(keep, m);
      Real const upper = draw.upper();  // 1 - U
      v_next = upper >= keep ? zero : quick_divide(quick_log(quick_divide(keep, upper)), beta);
      finite = s.a < beta;
      w = quick_divide(rounded_product(keep, s.a), beta - s.a);
      weight = -one;
    }
    Real const k0 =
        finite ? rounded_product(weight, small_log1p(w)) + quadratic_term - rounded_product(s.k1k3, v) : s.k0_fallback;
    // Products rounded before they are added (rounded_product.hpp): the Greek kernel inlines
    // this step next to others and must price with the same bits.
    dx = s.log_forward + k0 + rounded_product(s.k1, v) + rounded_product(s.k2, v_next) +
         rounded_product(quick_sqrt(rounded_product(s.k3, v + v_next)), z_x);
  } else {
    // No vol of vol (or a variance absorbed at zero): the variance follows its mean and the
    // step is log-normal.
    Real const var = rounded_product(rounded_product(Real(0.5), v + v_next), s.dt);
    dx = s.log_forward - rounded_product(Real(0.5), var) + rounded_product(math::sqrt(math::fmax(var, zero)), z_x);
  }
  integrated_variance = rounded_product(rounded_product(Real(0.5), v + v_next), s.dt);
  v = v_next;
}

template <typename Real>
MCPRICE_HD MCPRICE_INLINE void heston_qe_step(const basic_heston_trade<Real>& h, const basic_heston_step<Real>& s,
                                              Real& v, const basic_qe_paired_draw<Real>& draw, Real z_x, Real& dx,
                                              Real& integrated_variance)
{
  heston_qe_step(h.xi, s, v, draw, z_x, dx, integrated_variance);
}

// Calls step(k, draw, z_x, u, jump) for each step of a Heston path: the variance's draw (a
// normal and 32 raw bits), the log spot's normal, for continuous lookbacks a third normal (the
// bridge's extremum), and no_jump, or for a Bates trade the step's jump_draw. Four steps take two
// Box-Muller blocks (variance and log-spot normals in pairs) and one raw block; continuous
// lookbacks and jump trades take their normals one by one, their QE bits four steps at a time
// and their jump bits two steps at a time. Every Heston kernel (fused, two-phase, Greeks) walks
// its normals here, so a trade's numbers do not depend on the route.
template <path_product Product, typename Real, typename NormalStream, typename Step, typename Open = always_open>
MCPRICE_HD MCPRICE_INLINE void for_heston_step_normals(const basic_path_gbm_trade<Real>& t, NormalStream& rng,
                                                       Step&& step, Open open = {})
{
  using draw = basic_qe_paired_draw<Real>;
  bool const extremum = Product == path_product::lookback && t.continuous;
  bool const jumps = t.jumps.intensity > Real(0);
  if (extremum || jumps) {
    normal_feeder<NormalStream, Real> normals{rng};
    decltype(rng.next_uint4()) bits{};
    decltype(rng.next_uint4()) jump_bits{};
    for (int k = 0; k < t.steps && open(); ++k) {
      Real const z_v = normals.next();
      Real const z_x = normals.next();
      Real const u = extremum ? normals.next() : Real(0);
      if (k % 4 == 0) bits = rng.next_uint4();
      std::uint32_t const b = k % 4 == 0 ? bits.x : k % 4 == 1 ? bits.y : k % 4 == 2 ? bits.z : bits.w;
      if (!jumps) {
        step(k, draw{z_v, b}, z_x, u, no_jump{});
        continue;
      }
      if (k % 2 == 0) jump_bits = rng.next_uint4();
      step(k, draw{z_v, b}, z_x, u, k % 2 == 0 ? jump_draw{jump_bits.x, jump_bits.y} : jump_draw{jump_bits.z, jump_bits.w});
    }
    return;
  }
  int k = 0;
  Real const none(0);
  for (; k + 4 <= t.steps && open(); k += 4) {
    auto const first = mcprice::rng::normals4<Real>(rng);
    auto const second = mcprice::rng::normals4<Real>(rng);
    auto const bits = rng.next_uint4();
    step(k, draw{first.x, bits.x}, first.y, none, no_jump{});
    step(k + 1, draw{first.z, bits.y}, first.w, none, no_jump{});
    step(k + 2, draw{second.x, bits.z}, second.y, none, no_jump{});
    step(k + 3, draw{second.z, bits.w}, second.w, none, no_jump{});
  }
  if (k < t.steps && open()) {
    auto const first = mcprice::rng::normals4<Real>(rng);
    auto const second = k + 2 < t.steps ? mcprice::rng::normals4<Real>(rng) : decltype(first){};
    auto const bits = rng.next_uint4();
    step(k, draw{first.x, bits.x}, first.y, none, no_jump{});
    if (k + 1 < t.steps) step(k + 1, draw{first.z, bits.y}, first.w, none, no_jump{});
    if (k + 2 < t.steps) step(k + 2, draw{second.x, bits.z}, second.y, none, no_jump{});
  }
}

// The log jump of a Heston step of length dt (jump_draw), or none (no_jump).
template <typename Real>
MCPRICE_HD MCPRICE_INLINE no_jump heston_step_jump(const basic_path_gbm_trade<Real>&, Real, no_jump)
{
  return {};
}
template <typename Real>
MCPRICE_HD MCPRICE_INLINE Real heston_step_jump(const basic_path_gbm_trade<Real>& t, Real dt, const jump_draw& d)
{
  return log_jump(t.jumps, rounded_product(t.jumps.intensity, dt), d);
}

template <typename NormalStream, path_product Product, bool Antithetic, typename Real>
MCPRICE_HD MCPRICE_INLINE Real heston_sample(const basic_heston_trade<Real>& h, const basic_heston_step<Real>* grid,
                                             std::uint64_t group)
{
  const basic_path_gbm_trade<Real>& t = h;
  NormalStream rng(t.key, group);
  auto a = basic_path_state<Real>::start(t);
  auto b = a;
  Real va = h.v0;
  Real vb = h.v0;
  const basic_heston_step<Real>* steps = grid + t.first_step;
  auto const levels = observation_rows_of(steps, t);
  auto const step = [&](int k, const basic_qe_paired_draw<Real>& draw, Real z_x, Real u, auto jump) {
    basic_heston_step<Real> const s = steps[k];
    Real dx(0);
    Real var(0);
    heston_qe_step(h, s, va, draw, z_x, dx, var);
    a.template move<Product>(t, t.log_barrier, with_jump(dx, heston_step_jump(t, s.dt, jump)), var, s.fixing,
                             s.hit_value, u, levels);
    if constexpr (Antithetic) {
      heston_qe_step(h, s, vb, draw.antithetic(), -z_x, dx, var);
      b.template move<Product>(t, t.log_barrier, with_jump(dx, heston_step_jump(t, s.dt, jump.antithetic())), var,
                               s.fixing, s.hit_value, u, levels);
    }
  };
  for_heston_step_normals<Product>(t, rng, step, open_until_settled<Product, Antithetic>(a, b));
  Real const up = a.template settle<Product>(t);
  if constexpr (!Antithetic) return up;
  else return Real(0.5) * (up + b.template settle<Product>(t));
}

}  // namespace mcprice
