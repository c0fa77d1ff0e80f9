#pragma once
// Path-dependent single-asset payoffs under Black-Scholes with term structures: arithmetic and
// geometric Asians, barriers with rebates, one-touch / no-touch options and lookbacks. A path steps exactly
// (log-normal increments) over a per-trade time grid: the fixing times, plus a uniform grid when
// the barrier is monitored continuously. Between grid points a continuous barrier is handled by
// the Brownian bridge: the path's value is weighted by its probability of not crossing
// (conditional Monte Carlo), which converges to the continuous-barrier price with tens of steps
// and needs no extra random numbers.
#include "mcprice/kernels/models/jumps.hpp"
#include "mcprice/kernels/rng/box_muller.hpp"
#include "mcprice/kernels/layout/canonical_layout.hpp"
#include "mcprice/kernels/moments.hpp"
#include "mcprice/kernels/detail/real_math.hpp"
#include "mcprice/kernels/detail/rounded_product.hpp"
#include "mcprice/kernels/layout/sample_lanes.hpp"
#include "mcprice/kernels/products/outcome_tally.hpp"

#include <cmath>
#include <cstdint>
#include <type_traits>

namespace mcprice {

// What a step's `fixing` byte marks: a fixing (Asians, discrete barriers and lookbacks, a
// cliquet's reset, an autocallable's observation), and for autocallables a knock-in check.
inline constexpr std::uint8_t fixing_mark = 1;
inline constexpr std::uint8_t knock_in_mark = 2;

// An autocallable observation's levels as ln(level / initial level): the autocall barrier
// (+infinity at maturity, where nothing is called) and the coupon barrier. They ride in the
// trade's rows after its steps in the model's own step table (trade.observation_row), as GBM's
// jump rows do, so no family needs a table more; each step type says where it keeps the pair.
template <typename Real>
struct basic_call_levels {
  Real call;
  Real coupon;
};

// A trade's observation rows in its model's step table.
template <typename Step>
struct observation_rows {
  const Step* rows;
  MCPRICE_HD MCPRICE_INLINE auto operator[](int j) const { return observation_levels(rows[j]); }
};

// Products other than autocallables read no levels.
struct no_observation_rows {
};

template <typename Step, typename Trade>
MCPRICE_HD MCPRICE_INLINE observation_rows<Step> observation_rows_of(const Step* steps, const Trade& t)
{
  return {steps + t.observation_row};
}

// Real: the path precision (float, or double under `--precision double`); the records hold
// their parameters in it, and a path's arithmetic is done in it.
//
// One step of a trade's grid, from t_{i-1} to t_i. 16 bytes in float: one vector load per step.
template <typename Real>
struct alignas(16) basic_path_step {
  Real drift;           // ln(F(t_i)/F(t_{i-1})) - dw/2
  Real vol;             // sqrt(dw), dw the total-variance increment
  Real hit_value;       // P(0,t_i)/P(0,T): a payment at t_i in units of one paid at T
  std::uint8_t fixing;  // fixing_mark, knock_in_mark
};
using path_step = basic_path_step<float>;
using path_step_f64 = basic_path_step<double>;

// An observation row of a GBM grid keeps its levels in drift and vol.
template <typename Real>
MCPRICE_HD MCPRICE_INLINE auto observation_levels(const basic_path_step<Real>& r)
{
  return basic_call_levels<Real>{r.drift, r.vol};
}
template <typename Real>
void set_observation_levels(basic_path_step<Real>& r, Real call, Real coupon)
{
  r.drift = call;
  r.vol = coupon;
}

// european: a vanilla or digital on S_T (the path engine prices them under Heston).
enum class path_product : std::uint8_t { asian, barrier, touch, lookback, european, autocallable, cliquet };

template <path_product P>
using product_tag = std::integral_constant<path_product, P>;

// Calls f(product_tag<P>{}) with the trade's product as a compile-time constant: kernels branch
// once per lane, uniformly across a canonical block, and run the product's code straight-line.
// Europeans occur only under Heston (GBM prices them exactly): GBM kernels leave them out.
// WithStructured = false leaves out the autocallable and the cliquet, for a kernel whose request
// holds neither: their state sizes a kernel's registers (local_vol_kernel.cu); the caller
// guarantees no trade of theirs reaches it.
template <bool WithEuropean = true, bool WithStructured = true, typename F>
MCPRICE_HD MCPRICE_INLINE decltype(auto) with_path_product(path_product p, F&& f)
{
  if constexpr (WithEuropean) {
    if (p == path_product::european) return f(product_tag<path_product::european>{});
  }
  if constexpr (WithStructured) {
    if (p == path_product::autocallable) return f(product_tag<path_product::autocallable>{});
    if (p == path_product::cliquet) return f(product_tag<path_product::cliquet>{});
  }
  switch (p) {
    case path_product::barrier:
      return f(product_tag<path_product::barrier>{});
    case path_product::touch:
      return f(product_tag<path_product::touch>{});
    case path_product::lookback:
      return f(product_tag<path_product::lookback>{});
    default:
      return f(product_tag<path_product::asian>{});
  }
}

// Whether a product is a structured one (with_path_product's WithStructured).
MCPRICE_HD MCPRICE_INLINE constexpr bool structured_product(path_product p)
{
  return p == path_product::autocallable || p == path_product::cliquet;
}

// Trivially copyable: the device trade table holds these; steps live in a separate grid table.
template <typename Real>
struct basic_path_gbm_trade {
  std::uint64_t key;
  std::int64_t samples;
  std::int64_t first_block;
  std::int32_t first_step;  // into the grid table
  std::int32_t steps;
  Real spot;
  Real strike;
  Real log_barrier;  // ln(B / S_0): paths are stepped in log spot relative to today
  Real rebate;       // barrier: rebate; touch: payout
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
  std::int32_t fixings;    // asian: number of fixings, the spot fixing included
  Real log_extreme;        // lookback: ln(running extreme / S_0), 0 for a fresh trade
  std::uint8_t track_max;  // lookback: the maximum (floating put, fixed call), else the minimum
  std::uint8_t digital;    // european: 0 vanilla, 1 cash digital (pays `rebate`), 2 asset digital
  // Arithmetic asian: the geometric-average control variate. A sample's value is then
  // arithmetic payoff - geometric payoff + control_value, the geometric payoff's expectation
  // (in units paid at T, from the closed form), so its mean is unchanged and its variance small.
  std::uint8_t control;
  std::uint8_t seasoned;  // lookback: running_extreme was given (it does not move with S0)
  Real control_value;
  // Merton (and on Heston, Bates) jumps; intensity 0: none. A GBM jump trade's grid holds
  // `steps` more rows after its steps, whose drift is the step's mean jump count lambda dt
  // (gbm_step_jump).
  basic_jump_law<Real> jumps;
  // Autocallable (log_barrier: ln(L / S_0), L the initial level; strike: K as a fraction of L;
  // rebate: the coupon; continuous: the knock-in is monitored continuously, else at the steps
  // with knock_in_mark): its observation rows, relative to first_step, and ln(knock-in level / L).
  std::int32_t observation_row;
  Real log_knock_in;
  std::uint8_t memory;  // missed coupons are paid with the next one paid
  // Autocallables: the counters of how the price's paths ended (products/outcome_tally.hpp),
  // tally_slots of them; null: not counted. The backend places them when it uploads the records.
  unsigned long long* tally;
  std::int32_t tally_slots;
  // Cliquet: each period's return is held within [local_floor, local_cap], their sum within
  // [global_floor, global_cap] (infinite: no bound).
  Real local_floor, local_cap, global_floor, global_cap;
};
using path_gbm_trade = basic_path_gbm_trade<float>;
using path_gbm_trade_f64 = basic_path_gbm_trade<double>;

// A path takes a lane group (one subsequence) of its own.
inline constexpr int path_normals_per_sample = own_subsequence_normals;

using math::standard_normal_cdf;

// e^x as 2^(x log2 e): on the GPU one hardware instruction and a product (about 2e-7
// relative), where expf adds a range reduction; used where a path takes one per step.
MCPRICE_HD MCPRICE_INLINE float quick_exp(float x) { return exp2f(x * 1.44269504088896341F); }
// Double paths take the accurate exponential: they exist for validation.
MCPRICE_HD MCPRICE_INLINE double quick_exp(double x) { return math::exp(x); }

// Probability that a Brownian bridge from x0 to x1 (log spots, both on the safe side of the
// log barrier b) with variance v touches b.
template <typename Real>
MCPRICE_HD MCPRICE_INLINE Real bridge_hit_probability(Real x0, Real x1, Real b, Real v)
{
  if (v <= Real(0)) return Real(0);
  return math::exp(Real(-2) * (b - x0) * (b - x1) / v);
}

// The running state of one path.
template <typename Real>
struct basic_path_state {
  using trade = basic_path_gbm_trade<Real>;
  Real x;         // ln(S_t / S_0): relative, so float keeps its precision near today's spot
  Real sum;       // arithmetic-average accumulator
  Real log_sum;   // geometric-average accumulator
  Real survive;   // probability of no touch so far, given the path
  Real hit_paid;  // expected payment made at touches, in units paid at T
  Real extreme;   // lookback: running maximum or minimum of x; cliquet: x at the last reset
  // Autocallable: coupons missed so far (with memory), the next observation, and whether the
  // trade has been called (its payments are then all in hit_paid).
  Real missed;
  std::int32_t observation;
  bool called;

  MCPRICE_HD MCPRICE_INLINE static basic_path_state start(const trade& t)
  {
    // A fixing at t = 0 contributes S_0 (1 in units of S_0) to the sum and ln 1 = 0 to the log sum.
    return {Real(0), t.spot_fixing ? Real(1) : Real(0), Real(0), Real(1), Real(0), t.log_extreme, Real(0), 0, false};
  }

  // Whether the path's value is settled: an autocallable that was called.
  [[nodiscard]] MCPRICE_HD MCPRICE_INLINE bool settled() const { return called; }

  // z drives the step; u_normal (lookbacks under continuous monitoring only) places the
  // extremum of the Brownian bridge between the step's ends: for the maximum,
  // (x0 + x1 + sqrt((x1 - x0)^2 - 2 v ln U)) / 2 with U = N(u_normal) uniform.
  // jump: the step's log jump (a Real), or no_jump.
  // marks: the step's fixing byte; levels: the trade's observation rows (autocallables).
  template <path_product Product, typename Jump = no_jump, typename Levels = no_observation_rows>
  MCPRICE_HD MCPRICE_INLINE void advance(const trade& t, Real log_b, const basic_path_step<Real>& s, Real z,
                                         Real u_normal, Jump jump = {}, const Levels& levels = {})
  {
    move<Product>(t, log_b, with_jump(math::fma(s.vol, z, s.drift), jump), s.vol * s.vol, s.fixing, s.hit_value,
                  u_normal, levels);
  }

  // A step of log-increment dx and (integrated) variance var, whatever the model.
  template <path_product Product, typename Levels = no_observation_rows>
  MCPRICE_HD MCPRICE_INLINE void move(const trade& t, Real log_b, Real dx, Real var, std::uint8_t marks,
                                      Real hit_value, Real u_normal, const Levels& levels = {})
  {
    observe<Product>(t, log_b, x + dx, var, marks, hit_value, u_normal, levels);
  }

  // A step to the log spot x_next: what move does once the increment is added. The two-phase
  // route replays stored log spots through it, so both routes do the same float arithmetic.
  template <path_product Product, typename Levels = no_observation_rows>
  MCPRICE_HD MCPRICE_INLINE void observe(const trade& t, Real log_b, Real x_next, Real var, std::uint8_t marks,
                                         Real hit_value, Real u_normal, const Levels& levels = {})
  {
    Real const x_prev = x;
    bool const fixing = (marks & fixing_mark) != 0;
    if constexpr (Product == path_product::autocallable) {
      if (called) return;
      x = x_next;
      observe_autocall(t, log_b, x_prev, var, marks, hit_value, levels);
      return;
    }
    x = x_next;
    if constexpr (Product == path_product::cliquet) {
      if (fixing) {
        Real const r = quick_exp(x - extreme) - Real(1);
        sum += math::fmin(math::fmax(r, t.local_floor), t.local_cap);
        extreme = x;
      }
      return;
    }
    if constexpr (Product == path_product::lookback) {
      if (t.continuous) {
        Real const d = x - x_prev;
        // ln U for U = N(u): through the small tail probability, so U near 1 keeps its precision.
        Real const log_u = u_normal > Real(0) ? math::log1p(-standard_normal_cdf(-u_normal))
                                              : math::log(standard_normal_cdf(u_normal));
        Real const spread = rounded_product(d, d) - rounded_product(rounded_product(Real(2), var), log_u);
        Real const reach = rounded_product(Real(0.5), math::sqrt(math::fmax(spread, Real(0))));
        Real const mid = rounded_product(Real(0.5), x_prev + x);
        extreme = t.track_max ? math::fmax(extreme, mid + reach) : math::fmin(extreme, mid - reach);
      } else if (fixing) {
        extreme = t.track_max ? math::fmax(extreme, x) : math::fmin(extreme, x);
      }
      return;
    }
    if constexpr (Product == path_product::european) return;
    if constexpr (Product == path_product::asian) {
      if (fixing) {
        if (t.geometric || t.control) log_sum += x;
        if (!t.geometric) sum += quick_exp(x);
      }
      return;
    }
    if (survive == Real(0) || !(t.continuous || fixing)) return;
    bool const beyond = t.up ? x >= log_b : x <= log_b;
    Real const p = beyond ? Real(1) : t.continuous ? bridge_hit_probability(x_prev, x, log_b, var) : Real(0);
    hit_paid += rounded_product(rounded_product(survive, p), t.pay_at_hit ? hit_value : Real(1));
    survive *= Real(1) - p;
  }

  // An autocallable's step to x (from x_prev): the knock-in (survive: the probability that the
  // performance has stayed above the knock-in level, by the Brownian bridge when continuous),
  // then at an observation the coupon and the call. Payments go to hit_paid in units paid at T.
  template <typename Levels>
  MCPRICE_HD MCPRICE_INLINE void observe_autocall(const trade& t, Real log_b, Real x_prev, Real var,
                                                  std::uint8_t marks, Real hit_value, const Levels& levels)
  {
    if (survive > Real(0) && (t.continuous || (marks & knock_in_mark) != 0)) {
      Real const b = log_b + t.log_knock_in;
      Real const p = x <= b ? Real(1) : t.continuous ? bridge_hit_probability(x_prev, x, b, var) : Real(0);
      survive *= Real(1) - p;
    }
    if ((marks & fixing_mark) == 0) return;
    basic_call_levels<Real> const l = levels[observation];
    ++observation;
    if (x >= log_b + l.coupon) {
      hit_paid += rounded_product(rounded_product(t.rebate, missed + Real(1)), hit_value);
      missed = Real(0);
    } else if (t.memory) {
      missed += Real(1);
    }
    if (x >= log_b + l.call) {
      hit_paid += hit_value;
      called = true;
    }
  }

  // The payoff of a path whose walk has ended, with an autocallable's outcome counted in its
  // trade's tally. The price's paths end here; the Greeks' bumped scenarios take payoff alone.
  template <path_product Product>
  [[nodiscard]] MCPRICE_HD MCPRICE_INLINE Real settle(const trade& t) const
  {
    if constexpr (Product == path_product::autocallable) {
      if (t.tally != nullptr) {
        tally_add(t.tally + tally_knock_in_slot, tally_units(Real(1) - survive));
        // A call at row j has moved observation to j + 1; an uncalled path has passed every row.
        tally_add(t.tally + tally_first_redemption_slot + (called ? observation - 1 : observation), 1ULL);
      }
    }
    return payoff<Product>(t);
  }

  // The payoff in units paid at T.
  template <path_product Product>
  [[nodiscard]] MCPRICE_HD MCPRICE_INLINE Real payoff(const trade& t) const
  {
    Real const zero(0);
    if constexpr (Product == path_product::autocallable) {
      if (called) return hit_paid;
      // Redeemed at T: 1, less the put max(K - P(T), 0) / K when knocked in (1 - survive).
      Real const performance = math::exp(x - t.log_barrier);
      Real const loss = math::fmax(t.strike - performance, zero) / t.strike;
      return hit_paid + Real(1) - rounded_product(Real(1) - survive, loss);
    }
    if constexpr (Product == path_product::cliquet) {
      return math::fmin(math::fmax(sum, t.global_floor), t.global_cap);
    }
    Real const s_t = rounded_product(t.spot, math::exp(x));
    if constexpr (Product == path_product::asian) {
      Real const n = static_cast<Real>(t.fixings);
      auto const pay = [&](Real avg) {
        if (t.floating) return t.call ? math::fmax(s_t - avg, zero) : math::fmax(avg - s_t, zero);
        return t.call ? math::fmax(avg - t.strike, zero) : math::fmax(t.strike - avg, zero);
      };
      Real const avg = rounded_product(t.spot, t.geometric ? math::exp(log_sum / n) : sum / n);
      if (!t.control) return pay(avg);
      return pay(avg) - pay(rounded_product(t.spot, math::exp(log_sum / n))) + t.control_value;
    }
    if constexpr (Product == path_product::european) {
      bool const in = t.call ? s_t > t.strike : s_t < t.strike;
      if (t.digital == 1) return in ? t.rebate : zero;
      if (t.digital == 2) return in ? s_t : zero;
      return t.call ? math::fmax(s_t - t.strike, zero) : math::fmax(t.strike - s_t, zero);
    }
    if constexpr (Product == path_product::lookback) {
      Real const e = rounded_product(t.spot, math::exp(extreme));
      if (t.floating) return t.call ? s_t - e : e - s_t;  // call: S_T - min; put: max - S_T
      return t.call ? math::fmax(e - t.strike, zero) : math::fmax(t.strike - e, zero);
    }
    // One-touch pays at the hit or at expiry; no-touch pays at expiry if never touched.
    if constexpr (Product == path_product::touch) return rounded_product(t.rebate, t.call ? hit_paid : survive);
    Real const vanilla = t.call ? math::fmax(s_t - t.strike, zero) : math::fmax(t.strike - s_t, zero);
    // Knock-in: the rebate is paid at expiry if never knocked in; knock-out: at the hit.
    if (t.knock_in) return rounded_product(vanilla, Real(1) - survive) + rounded_product(t.rebate, survive);
    return rounded_product(vanilla, survive) + rounded_product(t.rebate, hit_paid);
  }
};
using path_state = basic_path_state<float>;

// Hands out a subsequence's normals one at a time, four drawn at once, in registers.
template <typename NormalStream, typename Real = float>
struct normal_feeder {
  NormalStream& rng;
  Real z0{0}, z1{0}, z2{0}, z3{0};
  int left{0};

  MCPRICE_HD MCPRICE_INLINE Real next()
  {
    if (left == 0) {
      auto const q = mcprice::rng::normals4<Real>(rng);
      z0 = q.x;
      z1 = q.y;
      z2 = q.z;
      z3 = q.w;
      left = 4;
    }
    Real const v = z0;
    z0 = z1;
    z1 = z2;
    z2 = z3;
    --left;
    return v;
  }
};

// A walk's `open`: whether its path still needs steps. Every walk below stops drawing once it
// returns false (checked before each draw); a path's remaining steps never change its value then.
struct always_open {
  MCPRICE_HD MCPRICE_INLINE constexpr bool operator()() const { return true; }
};

// The open of a sample's paths a and b: an autocallable's close once every side has been called
// (a called path's value is settled); the other products walk every step.
template <path_product Product, bool Antithetic, typename State>
MCPRICE_HD MCPRICE_INLINE auto open_until_settled(const State& a, const State& b)
{
  // Other products get a walk with no test at all (and no reference to their states).
  if constexpr (Product != path_product::autocallable) {
    return always_open{};
  } else {
    return [&a, &b] { return !(a.settled() && (!Antithetic || b.settled())); };
  }
}

// Calls step(k, z_k) for k = 0..steps-1, z_k the k-th normal of the stream: four steps per
// draw of four, with the normals in registers (the same normals, in the same order, that a
// normal_feeder hands out one at a time, without its shuffling).
template <typename Real = float, typename NormalStream, typename Step, typename Open = always_open>
MCPRICE_HD MCPRICE_INLINE void for_step_normals(NormalStream& rng, int steps, Step&& step, Open open = {})
{
  int k = 0;
  for (; k + 4 <= steps && open(); k += 4) {
    auto const q = mcprice::rng::normals4<Real>(rng);
    step(k, q.x);
    step(k + 1, q.y);
    step(k + 2, q.z);
    step(k + 3, q.w);
  }
  if (k < steps && open()) {
    auto const q = mcprice::rng::normals4<Real>(rng);
    step(k, q.x);
    if (k + 1 < steps) step(k + 1, q.y);
    if (k + 2 < steps) step(k + 2, q.z);
  }
}

// The same with two normals per step: step(k, first, second).
template <typename Real = float, typename NormalStream, typename Step, typename Open = always_open>
MCPRICE_HD MCPRICE_INLINE void for_step_normal_pairs(NormalStream& rng, int steps, Step&& step, Open open = {})
{
  int k = 0;
  for (; k + 2 <= steps && open(); k += 2) {
    auto const q = mcprice::rng::normals4<Real>(rng);
    step(k, q.x, q.y);
    step(k + 1, q.z, q.w);
  }
  if (k < steps && open()) {
    auto const q = mcprice::rng::normals4<Real>(rng);
    step(k, q.x, q.y);
  }
}

// Calls step(k, z, u, jump) for each step of a GBM path: one normal a step, and for continuous
// lookbacks a second (u, which places the bridge's extremum); jump: no_jump, or for a jump
// trade the step's jump_draw (raw draws, four a block: two steps' worth).
template <path_product Product, typename Real, typename NormalStream, typename Step, typename Open = always_open>
MCPRICE_HD MCPRICE_INLINE void for_path_step_normals(const basic_path_gbm_trade<Real>& t, NormalStream& rng,
                                                     Step&& step, Open open = {})
{
  bool const extremum = Product == path_product::lookback && t.continuous;
  if (t.jumps.intensity > Real(0)) {
    normal_feeder<NormalStream, Real> normals{rng};
    decltype(rng.next_uint4()) bits{};
    for (int k = 0; k < t.steps && open(); ++k) {
      Real const z = normals.next();
      Real const u = extremum ? normals.next() : Real(0);
      if (k % 2 == 0) bits = rng.next_uint4();
      step(k, z, u, k % 2 == 0 ? jump_draw{bits.x, bits.y} : jump_draw{bits.z, bits.w});
    }
  } else if (extremum) {
    for_step_normal_pairs<Real>(rng, t.steps, [&](int k, Real z, Real u) { step(k, z, u, no_jump{}); }, open);
  } else {
    for_step_normals<Real>(rng, t.steps, [&](int k, Real z) { step(k, z, Real(0), no_jump{}); }, open);
  }
}

// The log jump of step k of a GBM trade (jump_draw), or none (no_jump).
template <typename Real>
MCPRICE_HD MCPRICE_INLINE no_jump gbm_step_jump(const basic_path_gbm_trade<Real>&, const basic_path_step<Real>*, int,
                                                no_jump)
{
  return {};
}
template <typename Real>
MCPRICE_HD MCPRICE_INLINE Real gbm_step_jump(const basic_path_gbm_trade<Real>& t, const basic_path_step<Real>* steps,
                                             int k, const jump_draw& d)
{
  return log_jump(t.jumps, steps[t.steps + k].drift, d);
}

// One sample: the path of normals z_k, and with antithetic sampling also the path of -z_k,
// stepped side by side so each normal is drawn once. The sample's value is their mean.
template <typename NormalStream, path_product Product, bool Antithetic, typename Real>
MCPRICE_HD MCPRICE_INLINE Real path_sample(const basic_path_gbm_trade<Real>& t, const basic_path_step<Real>* grid,
                                           std::uint64_t group)
{
  NormalStream rng(t.key, group);
  Real const log_b = t.log_barrier;
  auto a = basic_path_state<Real>::start(t);
  auto b = a;
  const basic_path_step<Real>* steps = grid + t.first_step;
  auto const levels = observation_rows_of(steps, t);
  for_path_step_normals<Product>(t, rng, [&](int k, Real z, Real u, auto jump) {
    basic_path_step<Real> const s = steps[k];
    a.template advance<Product>(t, log_b, s, z, u, gbm_step_jump(t, steps, k, jump), levels);
    if constexpr (Antithetic)
      b.template advance<Product>(t, log_b, s, -z, u, gbm_step_jump(t, steps, k, jump.antithetic()), levels);
  }, open_until_settled<Product, Antithetic>(a, b));
  Real const up = a.template settle<Product>(t);
  if constexpr (!Antithetic) return up;
  else return Real(0.5) * (up + b.template settle<Product>(t));
}

template <typename NormalStream, path_product Product, bool Antithetic, typename Real>
MCPRICE_HD MCPRICE_INLINE moments path_lane_of(const basic_path_gbm_trade<Real>& t, const basic_path_step<Real>* grid,
                                               std::int64_t block, int lane)
{
  return own_subsequence_lane(t.samples, block, lane, [&](std::uint64_t subsequence) {
    return path_sample<NormalStream, Product, Antithetic>(t, grid, subsequence);
  });
}

// Float GBM Europeans without jumps have a kernel of their own (one exact step); with jumps,
// and in double, they are one-step paths here.
template <typename NormalStream, bool Antithetic, typename Real>
MCPRICE_HD MCPRICE_INLINE moments path_lane_sampled(const basic_path_gbm_trade<Real>& t,
                                                    const basic_path_step<Real>* grid, std::int64_t block, int lane)
{
  return with_path_product(t.product, [&](auto product) {
    return path_lane_of<NormalStream, decltype(product)::value, Antithetic>(t, grid, block, lane);
  });
}

// Moments of lane `lane` of canonical block `block` (within the trade): one sample per group,
// with the product and the sampling as compile-time constants (one branch per lane).
template <typename NormalStream, typename Real>
MCPRICE_HD MCPRICE_INLINE moments path_lane(const basic_path_gbm_trade<Real>& t, const basic_path_step<Real>* grid,
                                            std::int64_t block, int lane)
{
  return t.antithetic ? path_lane_sampled<NormalStream, true>(t, grid, block, lane)
                      : path_lane_sampled<NormalStream, false>(t, grid, block, lane);
}

}  // namespace mcprice
