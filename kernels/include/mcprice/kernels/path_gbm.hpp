#pragma once
// Path-dependent single-asset payoffs under Black-Scholes with term structures: arithmetic and
// geometric Asians, barriers with rebates and one-touch / no-touch options. A path steps exactly
// (log-normal increments) over a per-trade time grid: the fixing times, plus a uniform grid when
// the barrier is monitored continuously. Between grid points a continuous barrier is handled by
// the Brownian bridge: the path's value is weighted by its probability of not crossing
// (conditional Monte Carlo), which converges to the continuous-barrier price with tens of steps
// and needs no extra random numbers.
#include "mcprice/kernels/canonical_layout.hpp"
#include "mcprice/kernels/moments.hpp"

#include <cmath>
#include <cstdint>

namespace mcprice {

// One step of a trade's grid, from t_{i-1} to t_i.
struct path_step {
  float drift;      // ln(F(t_i)/F(t_{i-1})) - dw/2
  float vol;        // sqrt(dw), dw the total-variance increment
  float hit_value;  // P(0,t_i)/P(0,T): a payment at t_i in units of one paid at T
  std::uint8_t fixing;  // t_i is an averaging / discrete-monitoring time
};

enum class path_product : std::uint8_t { asian, barrier, touch };

// Trivially copyable: the device trade table holds these; steps live in a separate grid table.
struct path_gbm_trade {
  std::uint64_t key;
  std::int64_t samples;
  std::int64_t first_block;
  std::int32_t first_step;   // into the grid table
  std::int32_t steps;
  float spot;
  float strike;
  float log_barrier;         // ln(B / S_0): paths are stepped in log spot relative to today
  float rebate;              // barrier: rebate; touch: payout
  path_product product;
  std::uint8_t call;         // 1 call, 0 put (touch: 1 one-touch, 0 no-touch)
  std::uint8_t up;           // barrier/touch direction
  std::uint8_t knock_in;     // barrier effect
  std::uint8_t continuous;   // barrier/touch monitoring
  std::uint8_t pay_at_hit;   // knock-out rebate and one-touch: paid at the hit (else at expiry)
  std::uint8_t geometric;    // asian averaging
  std::uint8_t floating;     // asian strike
  std::uint8_t spot_fixing;  // asian: today's spot is one of the fixings (a fixing at t = 0)
  std::uint8_t antithetic;
  std::int32_t fixings;      // asian: number of fixings, the spot fixing included
};

// Every step draws one normal; a path takes a lane group (one subsequence) of its own.
inline constexpr int path_normals_per_sample = 4;

// Probability that a Brownian bridge from x0 to x1 (log spots, both on the safe side of the
// log barrier b) with variance v touches b.
MCPRICE_HD MCPRICE_INLINE float bridge_hit_probability(float x0, float x1, float b, float v)
{
  if (v <= 0.0F) return 0.0F;
  return expf(-2.0F * (b - x0) * (b - x1) / v);
}

// The running state of one path.
struct path_state {
  float x;         // ln(S_t / S_0): relative, so float keeps its precision near today's spot
  float sum;       // arithmetic-average accumulator
  float log_sum;   // geometric-average accumulator
  float survive;   // probability of no touch so far, given the path
  float hit_paid;  // expected payment made at touches, in units paid at T

  MCPRICE_HD MCPRICE_INLINE static path_state start(const path_gbm_trade& t)
  {
    // A fixing at t = 0 contributes S_0 (1 in units of S_0) to the sum and ln 1 = 0 to the log sum.
    return {0.0F, t.spot_fixing ? 1.0F : 0.0F, 0.0F, 1.0F, 0.0F};
  }

  MCPRICE_HD MCPRICE_INLINE void advance(const path_gbm_trade& t, float log_b, const path_step& s, float z)
  {
    float const x_prev = x;
    x = x + fmaf(s.vol, z, s.drift);
    if (t.product == path_product::asian) {
      if (s.fixing) {
        sum += expf(x);
        log_sum += x;
      }
      return;
    }
    if (survive == 0.0F || !(t.continuous || s.fixing)) return;
    bool const beyond = t.up ? x >= log_b : x <= log_b;
    float const p = beyond ? 1.0F : t.continuous ? bridge_hit_probability(x_prev, x, log_b, s.vol * s.vol) : 0.0F;
    hit_paid += survive * p * (t.pay_at_hit ? s.hit_value : 1.0F);
    survive *= 1.0F - p;
  }

  // The payoff in units paid at T.
  [[nodiscard]] MCPRICE_HD MCPRICE_INLINE float payoff(const path_gbm_trade& t) const
  {
    float const s_t = t.spot * expf(x);
    if (t.product == path_product::asian) {
      float const n = static_cast<float>(t.fixings);
      float const avg = t.spot * (t.geometric ? expf(log_sum / n) : sum / n);
      if (t.floating) return t.call ? fmaxf(s_t - avg, 0.0F) : fmaxf(avg - s_t, 0.0F);
      return t.call ? fmaxf(avg - t.strike, 0.0F) : fmaxf(t.strike - avg, 0.0F);
    }
    // One-touch pays at the hit or at expiry; no-touch pays at expiry if never touched.
    if (t.product == path_product::touch) return t.call ? t.rebate * hit_paid : t.rebate * survive;
    float const vanilla = t.call ? fmaxf(s_t - t.strike, 0.0F) : fmaxf(t.strike - s_t, 0.0F);
    // Knock-in: the rebate is paid at expiry if never knocked in; knock-out: at the hit.
    if (t.knock_in) return vanilla * (1.0F - survive) + t.rebate * survive;
    return vanilla * survive + t.rebate * hit_paid;
  }
};

// One sample: the path of normals z_k, and with antithetic sampling also the path of -z_k,
// stepped side by side so each normal is drawn once. The sample's value is their mean.
template <typename NormalStream>
MCPRICE_HD MCPRICE_INLINE float path_sample(const path_gbm_trade& t, const path_step* grid, std::uint64_t group)
{
  NormalStream rng(t.key, group);
  float const log_b = t.log_barrier;
  path_state a = path_state::start(t);
  path_state b = a;
  const path_step* steps = grid + t.first_step;
  for (int k = 0; k < t.steps; k += 4) {
    auto const z4 = rng.next4();
    float const zs[4] = {z4.x, z4.y, z4.z, z4.w};
    MCPRICE_UNROLL
    for (int j = 0; j < 4; ++j) {
      if (k + j < t.steps) {
        a.advance(t, log_b, steps[k + j], zs[j]);
        if (t.antithetic) b.advance(t, log_b, steps[k + j], -zs[j]);
      }
    }
  }
  float const up = a.payoff(t);
  return t.antithetic ? 0.5F * (up + b.payoff(t)) : up;
}

// Moments of lane `lane` of canonical block `block` (within the trade): one sample per group.
template <typename NormalStream>
MCPRICE_HD MCPRICE_INLINE moments path_lane(const path_gbm_trade& t, const path_step* grid, std::int64_t block, int lane)
{
  constexpr int d = path_normals_per_sample;
  moments m{};
  for (int g = 0; g < layout::groups_per_lane(d); ++g) {
    std::int64_t const group = layout::group_index(block, g, lane, d);
    if (group >= t.samples) break;
    float const x = path_sample<NormalStream>(t, grid, static_cast<std::uint64_t>(group));
    m.add_group(x, 0.0F, 1);
  }
  return m;
}

}  // namespace mcprice
