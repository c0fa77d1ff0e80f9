#pragma once
// Heston paths for every single-asset product: Andersen's quadratic-exponential (QE) scheme for
// the variance, with the martingale correction of the log-spot step (L. Andersen, "Efficient
// Simulation of the Heston Stochastic Volatility Model", 2008), gamma1 = gamma2 = 1/2. The
// path state (Asian sums, barrier survival with the bridge on the step's integrated variance,
// lookback extremes) is the GBM path engine's.
#include "mcprice/kernels/path_gbm.hpp"

namespace mcprice {

struct heston_step {
  float dt;
  float log_forward;  // ln(F(t_i) / F(t_{i-1})): the rates' and dividends' drift of the step
  float hit_value;    // P(0,t_i)/P(0,T)
  std::uint8_t fixing;
};

// The path record (product, payoff; first_step and steps index the heston_step table) and the
// asset's Heston parameters.
struct heston_trade : path_gbm_trade {
  float v0, kappa, theta, xi, rho;
};

// The psi threshold between the quadratic and the exponential branch (Andersen's 1.5).
inline constexpr float qe_psi_switch = 1.5F;

// One QE step of the variance and the matching log-spot increment.
MCPRICE_HD MCPRICE_INLINE void heston_qe_step(const heston_trade& h, const heston_step& s, float& v, float z_v, float z_x,
                                              float& dx, float& integrated_variance)
{
  float const dt = s.dt;
  float const e = expf(-h.kappa * dt);
  float const m = h.theta + (v - h.theta) * e;
  float v_next = m;
  float k0 = 0.0F;
  float const xi = h.xi;
  if (xi > 1e-6F) {
    float const s2 = v * xi * xi * e * (1.0F - e) / h.kappa + h.theta * xi * xi * (1.0F - e) * (1.0F - e) / (2.0F * h.kappa);
    float const psi = s2 / (m * m);
    float const k1 = 0.5F * dt * (h.kappa * h.rho / xi - 0.5F) - h.rho / xi;
    float const k2 = 0.5F * dt * (h.kappa * h.rho / xi - 0.5F) + h.rho / xi;
    float const k3 = 0.5F * dt * (1.0F - h.rho * h.rho);
    float const a_coef = k2 + 0.5F * k3;  // A of the martingale correction (K4 = K3)
    if (psi <= qe_psi_switch) {
      float const inv = 2.0F / psi;
      float const b2 = inv - 1.0F + sqrtf(inv) * sqrtf(fmaxf(inv - 1.0F, 0.0F));
      float const a = m / (1.0F + b2);
      float const b = sqrtf(b2);
      v_next = a * (b + z_v) * (b + z_v);
      // E[exp(A v')] for the quadratic branch; the correction keeps E[S_{t+dt}] = F ratio.
      k0 = (2.0F * a_coef * a < 1.0F)
               ? -a_coef * b2 * a / (1.0F - 2.0F * a_coef * a) + 0.5F * logf(1.0F - 2.0F * a_coef * a) - (k1 + 0.5F * k3) * v
               : -h.rho * h.kappa * h.theta * dt / xi;
    } else {
      float const p = (psi - 1.0F) / (psi + 1.0F);
      float const beta = (1.0F - p) / m;
      float const u = standard_normal_cdf(z_v);
      v_next = u <= p ? 0.0F : logf((1.0F - p) / (1.0F - u)) / beta;
      k0 = (a_coef < beta) ? -logf(p + beta * (1.0F - p) / (beta - a_coef)) - (k1 + 0.5F * k3) * v
                           : -h.rho * h.kappa * h.theta * dt / xi;
    }
    dx = s.log_forward + k0 + k1 * v + k2 * v_next + sqrtf(fmaxf(k3 * (v + v_next), 0.0F)) * z_x;
  } else {
    // No vol of vol: the variance follows its mean; the step is log-normal.
    float const var = 0.5F * (v + v_next) * dt;
    dx = s.log_forward - 0.5F * var + sqrtf(fmaxf(var, 0.0F)) * z_x;
  }
  integrated_variance = 0.5F * (v + v_next) * dt;
  v = v_next;
}

template <typename NormalStream, path_product Product, bool Antithetic>
MCPRICE_HD MCPRICE_INLINE float heston_sample(const heston_trade& h, const heston_step* grid, std::uint64_t group)
{
  const path_gbm_trade& t = h;
  NormalStream rng(t.key, group);
  normal_feeder<NormalStream> normals{rng};
  bool const bridge_extremum = Product == path_product::lookback && t.continuous;
  path_state a = path_state::start(t);
  path_state b = a;
  float va = h.v0;
  float vb = h.v0;
  const heston_step* steps = grid + t.first_step;
  for (int k = 0; k < t.steps; ++k) {
    heston_step const s = steps[k];
    float const z_v = normals.next();
    float const z_x = normals.next();
    float const u = bridge_extremum ? normals.next() : 0.0F;
    float dx = 0.0F;
    float var = 0.0F;
    heston_qe_step(h, s, va, z_v, z_x, dx, var);
    a.move<Product>(t, t.log_barrier, dx, var, s.fixing != 0, s.hit_value, u);
    if constexpr (Antithetic) {
      heston_qe_step(h, s, vb, -z_v, -z_x, dx, var);
      b.move<Product>(t, t.log_barrier, dx, var, s.fixing != 0, s.hit_value, u);
    }
  }
  float const up = a.payoff<Product>(t);
  if constexpr (!Antithetic) return up;
  else return 0.5F * (up + b.payoff<Product>(t));
}

template <typename NormalStream, bool Antithetic>
MCPRICE_HD MCPRICE_INLINE float heston_sample_of(const heston_trade& h, const heston_step* grid, std::uint64_t group)
{
  switch (h.product) {
    case path_product::asian: return heston_sample<NormalStream, path_product::asian, Antithetic>(h, grid, group);
    case path_product::barrier: return heston_sample<NormalStream, path_product::barrier, Antithetic>(h, grid, group);
    case path_product::touch: return heston_sample<NormalStream, path_product::touch, Antithetic>(h, grid, group);
    case path_product::lookback: return heston_sample<NormalStream, path_product::lookback, Antithetic>(h, grid, group);
    default: return heston_sample<NormalStream, path_product::european, Antithetic>(h, grid, group);
  }
}

template <typename NormalStream>
MCPRICE_HD MCPRICE_INLINE moments heston_lane(const heston_trade& h, const heston_step* grid, std::int64_t block, int lane)
{
  return own_subsequence_lane(h.samples, block, lane, [&](std::uint64_t subsequence) {
    return h.antithetic ? heston_sample_of<NormalStream, true>(h, grid, subsequence)
                        : heston_sample_of<NormalStream, false>(h, grid, subsequence);
  });
}

}  // namespace mcprice
