#pragma once
// Greeks of worst-of autocallables in the price's pass: scenario walks on the price's normals.
// Each scenario walks the sample's paths again from the same subsequence (the same normals) with
// one input moved, and the Greeks are central differences of the scenarios' values, in the
// baskets' channels (basket_greeks.hpp):
//   per asset i: delta_i and gamma_i (S0_i +-1%: the path in log spot is the same, so only asset
//   i's performance moves, by ln(1 +- h)), vega_i (its steps' vol +-0.01 along their derivatives,
//   as the single-asset scenario lanes move them, path_greeks.hpp);
//   per pair i < j: the cross gamma (four corners of +-1%);
//   correlation vega (every pairwise correlation +-0.01: the bumped factors after the trade's
//   own), rho (every drift and payment discount, +-1e-3) and theta (the first step -+eps).
// Walking again costs a walk per scenario (1 + 4n + 2n(n-1) + 6 for n assets), but keeps one path
// state in registers, and the calls and coupons are digitals: differences, not derivatives.
#include "mcprice/kernels/greeks/basket_greeks.hpp"
#include "mcprice/kernels/greeks/path_greeks.hpp"
#include "mcprice/kernels/greeks/scenario_roll.hpp"
#include "mcprice/kernels/models/worst_of_path.hpp"

#include <cmath>
#include <cstdint>
#include <type_traits>

namespace mcprice {

// What a scenario moves. model: the single-asset scenario (scenario_step_of's index: 2/3 vol,
// 4/5 rate, 6/7 time; 0 none) for asset model_asset (-1: every asset); factor: 0 the trade's
// correlation factor, 1 and 2 the bumped ones; shift: performance shifts of up to two assets.
template <typename Real>
struct basic_worst_of_scenario {
  int model{0};
  int model_asset{-1};
  int factor{0};
  int shifted[2]{-1, -1};
  Real shift[2]{Real(0), Real(0)};
};
using worst_of_scenario = basic_worst_of_scenario<float>;

// The tables a worst-of Greek walk reads beside the price's.
template <typename Real>
struct basic_worst_of_greek_view {
  const basic_path_step<Real>* steps;         // the trade's rows
  const basic_path_greek_step<Real>* greeks;  // parallel to them
  const Real* log_initials;                   // the trade's
  const Real* factors;                        // the trade's own, then correlations +h, -h
};
using worst_of_greek_view = basic_worst_of_greek_view<float>;

// One side's value (sign -1: the antithetic path) in scenario `sc`, from subsequence `group`.
// Called, not inlined, on the GPU (MCPRICE_CALLED): a sample walks 1 + 4n + 2n(n-1) + 6 of them
// from a dozen call sites. Assets: the trade's asset count where a kernel sizes it
// (worst_of_room), or 0.
template <typename NormalStream, bool Antithetic, int Assets, typename Real>
MCPRICE_HD MCPRICE_CALLED Real worst_of_scenario_value(const basic_worst_of_trade<Real>& t,
                                                       const basic_worst_of_greek_view<Real>& v,
                                                       const basic_worst_of_scenario<Real>& sc, std::uint64_t group)
{
  Real const zero(0);
  int const n = Assets > 0 ? Assets : t.assets;
  Real const maturity = v.greeks[static_cast<std::int64_t>(t.steps - 1) * n].time;
  Real const eps = scenario_roll(v.greeks[0].time);
  const Real* factor = v.factors + sc.factor * n * n;
  const basic_path_gbm_trade<Real>& base = t;
  auto const levels = observation_rows_of(v.steps, t);
  Real offset[worst_of_room<Assets>];
  for (int i = 0; i < n; ++i) {
    offset[i] = v.log_initials[i];
    for (int s = 0; s < 2; ++s) offset[i] -= sc.shifted[s] == i ? sc.shift[s] : zero;
  }
  auto a = worst_of_start(t, offset);
  auto b = a;
  NormalStream rng(t.key, group);
  normal_feeder<NormalStream, Real> normals{rng};
  Real xa[worst_of_room<Assets>] = {};
  Real xb[worst_of_room<Assets>] = {};
  for (int k = 0; k < t.steps && !(a.settled() && (!Antithetic || b.settled())); ++k) {
    Real y[worst_of_room<Assets>];
    worst_of_normals(n, factor, normals, y);
    worst_of_step<Real> wa{zero, zero};
    worst_of_step<Real> wb{zero, zero};
    Real hit = zero;
    for (int i = 0; i < n; ++i) {
      std::int64_t const row = static_cast<std::int64_t>(k) * n + i;
      Real const t_prev = k == 0 ? zero : v.greeks[row - n].time;
      bool const moved = sc.model_asset < 0 || sc.model_asset == i;
      basic_scenario_step<Real> const c =
          scenario_step_of(moved ? sc.model : 0, k, v.steps[row], v.greeks[row], t_prev, maturity, eps);
      if (i == 0) hit = c.hit_value;
      xa[i] += math::fma(c.vol, y[i], c.drift);
      xb[i] += math::fma(c.vol, -y[i], c.drift);
      Real const pa = xa[i] - offset[i];
      Real const pb = xb[i] - offset[i];
      if (i == 0 || pa < wa.x) wa = {pa, c.vol * c.vol};
      if (i == 0 || pb < wb.x) wb = {pb, c.vol * c.vol};
    }
    std::uint8_t const marks = v.steps[static_cast<std::int64_t>(k) * n].fixing;
    a.template observe<path_product::autocallable>(base, zero, wa.x, wa.var, marks, hit, zero, levels);
    if constexpr (Antithetic)
      b.template observe<path_product::autocallable>(base, zero, wb.x, wb.var, marks, hit, zero, levels);
  }
  Real const up = a.template payoff<path_product::autocallable>(base);
  if constexpr (!Antithetic) return up;
  else return Real(0.5) * (up + b.template payoff<path_product::autocallable>(base));
}

// What theta and rho read beside the scenarios' values: the trade's maturity, its first step's
// roll and the zero rate to maturity.
template <typename Real>
struct basic_worst_of_clock {
  Real maturity;
  Real eps;
  Real rate;
};
using worst_of_clock = basic_worst_of_clock<float>;

template <typename Real>
MCPRICE_HD MCPRICE_INLINE basic_worst_of_clock<Real> clock_of(const basic_worst_of_trade<Real>& t,
                                                              const basic_worst_of_greek_view<Real>& v)
{
  Real const maturity = v.greeks[static_cast<std::int64_t>(t.steps - 1) * t.assets].time;
  return {maturity, scenario_roll(v.greeks[0].time), v.greeks[0].rate};
}

// Adds one sample's Greek channels to g (basket_channels' layout); spots: S_i(0); value(sc): the
// sample's value in scenario sc.
template <typename Real, typename Value>
MCPRICE_HD MCPRICE_INLINE void add_worst_of_greeks(const basic_worst_of_trade<Real>& t,
                                                   const basic_worst_of_clock<Real>& clock, const Real* spots,
                                                   Value&& value, Real* g)
{
  using bumps = basket_bumps<Real>;
  using scenario = basic_worst_of_scenario<Real>;
  Real const two(2);
  int const n = t.assets;
  basket_channels const ch{n};
  Real const h = bumps::spot;
  // log1pf itself in float, as scenario_trade's logf: nvcc folds the constant call, not through
  // a wrapper, and the float Greeks keep their bits.
  Real up_shift;
  Real down_shift;
  if constexpr (std::is_same_v<Real, float>) {
    up_shift = log1pf(h);
    down_shift = log1pf(-h);
  } else {
    up_shift = math::log1p(h);
    down_shift = math::log1p(-h);
  }
  Real const p0 = value(scenario{});
  auto shifted = [&](int i, Real si, int j, Real sj) {
    scenario sc;
    sc.shifted[0] = i;
    sc.shift[0] = si;
    sc.shifted[1] = j;
    sc.shift[1] = sj;
    return value(sc);
  };
  auto modelled = [&](int model, int asset) {
    scenario sc;
    sc.model = model;
    sc.model_asset = asset;
    return value(sc);
  };
  for (int i = 0; i < n; ++i) {
    Real const up = shifted(i, up_shift, -1, Real(0));
    Real const down = shifted(i, down_shift, -1, Real(0));
    Real const dS = h * spots[i];
    g[ch.delta(i)] = (up - down) / (two * dS);
    g[ch.gamma(i)] = (up - two * p0 + down) / (dS * dS);
    g[ch.vega(i)] = (modelled(2, i) - modelled(3, i)) / (two * scenario_bumps<Real>::vol);
    for (int j = i + 1; j < n; ++j) {
      Real const pp = shifted(i, up_shift, j, up_shift);
      Real const pm = shifted(i, up_shift, j, down_shift);
      Real const mp = shifted(i, down_shift, j, up_shift);
      Real const mm = shifted(i, down_shift, j, down_shift);
      g[ch.cross(i, j)] = (pp - pm - mp + mm) / (Real(4) * h * h * spots[i] * spots[j]);
    }
  }
  scenario correlated;
  correlated.factor = 1;
  Real const corr_up = value(correlated);
  correlated.factor = 2;
  g[ch.correlation_vega()] = (corr_up - value(correlated)) / (two * bumps::correlation);
  constexpr Real rate_bump = scenario_bumps<Real>::rate;
  Real const rate_up = math::exp(-rate_bump * clock.maturity);
  Real const time_factor = math::exp(clock.rate * clock.eps);
  g[ch.rho()] = (modelled(4, -1) * rate_up - modelled(5, -1) / rate_up) / (two * rate_bump);
  g[ch.theta()] = (modelled(6, -1) * time_factor - modelled(7, -1) / time_factor) / (two * clock.eps);
}

// A lane of worst-of trades with Greeks, whatever the model: price(subsequence) is a sample's
// price, add_greeks(subsequence, v) its Greek channels (trades with t.greeks; the others' stay
// zero).
template <typename Real, typename Price, typename AddGreeks>
MCPRICE_HD MCPRICE_INLINE priced_basket_greeks worst_of_greek_lane_of(const basic_worst_of_trade<Real>& t,
                                                                      std::int64_t block, int lane, Price&& price,
                                                                      AddGreeks&& add_greeks)
{
  constexpr int d = own_subsequence_normals;
  priced_basket_greeks m{};
  int const channels = basket_channels{t.assets}.count();
  for (int g = 0; g < layout::groups_per_lane(d); ++g) {
    std::int64_t const group = layout::group_index(block, g, lane, d);
    if (group >= t.samples) break;
    auto const subsequence = static_cast<std::uint64_t>(group);
    m.price.add_group(price(subsequence), Real(0), 1);
    if (!t.greeks) continue;
    Real v[basket_greek_channels] = {};
    add_greeks(subsequence, v);
    for (int c = 0; c < channels; ++c) m.greeks.m[c].add_group(v[c], Real(0), 1);
  }
  return m;
}

// What the models' scenario walks share (local vol's and Heston's, whose steps differ).

// A scenario's rate move: +-the rate bump in the rho scenarios (4, 5), else 0.
template <typename Real>
MCPRICE_HD MCPRICE_INLINE Real scenario_rate_move(const basic_worst_of_scenario<Real>& sc)
{
  constexpr Real bump = scenario_bumps<Real>::rate;
  return sc.model == 4 ? bump : sc.model == 5 ? -bump : Real(0);
}

// Asset i's ln(L_i / S_i(0)) as scenario sc sees it: a spot shift of the asset moves it.
template <typename Real>
MCPRICE_HD MCPRICE_INLINE Real scenario_offset(const basic_worst_of_scenario<Real>& sc, Real log_initial, int i)
{
  for (int s = 0; s < 2; ++s) log_initial -= sc.shifted[s] == i ? sc.shift[s] : Real(0);
  return log_initial;
}

// The two sides' autocallable states of a scenario walk (sign -1: the antithetic side). Each
// observation's payment ratio moves with the scenario's rate, to first order in dr.
template <bool Antithetic, typename Step, typename Real>
struct scenario_sides {
  const basic_path_gbm_trade<Real>& base;
  observation_rows<Step> levels;
  basic_path_state<Real> a;
  basic_path_state<Real> b;
  Real dr;
  Real maturity;

  MCPRICE_HD MCPRICE_INLINE scenario_sides(const basic_worst_of_trade<Real>& t, const Step* steps, const Real* offsets,
                                           Real rate, Real t_end)
      : base(t), levels(observation_rows_of(steps, t)), a(worst_of_start(t, offsets)), b(a), dr(rate), maturity(t_end)
  {
  }
  // After a step ending at `time` whose first row is s.
  MCPRICE_HD MCPRICE_INLINE void observe(const Step& s, Real time, const worst_of_step<Real>& wa,
                                         const worst_of_step<Real>& wb)
  {
    Real const zero(0);
    Real const hit = dr == zero ? s.hit_value : s.hit_value * math::fma(dr, maturity - time, Real(1));
    a.template observe<path_product::autocallable>(base, zero, wa.x, wa.var, s.fixing, hit, zero, levels);
    if constexpr (Antithetic)
      b.template observe<path_product::autocallable>(base, zero, wb.x, wb.var, s.fixing, hit, zero, levels);
  }
  [[nodiscard]] MCPRICE_HD MCPRICE_INLINE bool open() const { return !(a.settled() && (!Antithetic || b.settled())); }
  MCPRICE_HD MCPRICE_INLINE Real value() const
  {
    Real const up = a.template payoff<path_product::autocallable>(base);
    if constexpr (!Antithetic) return up;
    else return Real(0.5) * (up + b.template payoff<path_product::autocallable>(base));
  }
};

// A lane of a model's worst-of trades with Greeks: price(subsequence) is a sample's price (the
// price lane's bits), walk(antithetic, room, sc, subsequence) a scenario walk's value, sized as
// the price walk is (std::bool_constant, std::integral_constant), and clock() the trade's
// worst_of_clock (formed only for trades with Greeks, whose rows hold it).
template <typename Real, typename Price, typename Walk, typename Clock>
MCPRICE_HD MCPRICE_INLINE priced_basket_greeks model_worst_of_greek_lane(const basic_worst_of_trade<Real>& t,
                                                                         const Real* spots, std::int64_t block,
                                                                         int lane, Price&& price, Walk&& walk,
                                                                         Clock&& clock)
{
  auto const add_greeks = [&](std::uint64_t subsequence, Real* v) {
    auto const value = [&](const basic_worst_of_scenario<Real>& sc) {
      return with_worst_of_room(t.assets, [&](auto room) {
        return t.antithetic ? walk(std::true_type{}, room, sc, subsequence)
                            : walk(std::false_type{}, room, sc, subsequence);
      });
    };
    add_worst_of_greeks(t, clock(), spots, value, v);
  };
  return worst_of_greek_lane_of(t, block, lane, price, add_greeks);
}

// A lane of GBM worst-of trades with Greeks: the price with worst_of_lane's bits.
template <typename NormalStream, typename Real>
MCPRICE_HD MCPRICE_INLINE priced_basket_greeks worst_of_greek_lane(const basic_worst_of_trade<Real>& t,
                                                                   const basic_path_step<Real>* grid,
                                                                   const basic_path_greek_step<Real>* greek_grid,
                                                                   const Real* log_initials, const Real* spots,
                                                                   const Real* factors, std::int64_t block, int lane)
{
  auto const price = [&](std::uint64_t subsequence) {
    return worst_of_price<NormalStream>(t, grid, log_initials, factors, subsequence);
  };
  auto const add_greeks = [&](std::uint64_t subsequence, Real* v) {
    // Formed here: a request whose trades have no Greek rows has no Greek grid to offset.
    basic_worst_of_greek_view<Real> const view{grid + t.first_step, greek_grid + t.first_step,
                                               log_initials + t.first_asset, factors + t.first_factor};
    auto const value = [&](const basic_worst_of_scenario<Real>& sc) {
      return with_worst_of_room(t.assets, [&](auto room) {
        constexpr int a = decltype(room)::value;
        return t.antithetic ? worst_of_scenario_value<NormalStream, true, a>(t, view, sc, subsequence)
                            : worst_of_scenario_value<NormalStream, false, a>(t, view, sc, subsequence);
      });
    };
    add_worst_of_greeks(t, clock_of(t, view), spots + t.first_asset, value, v);
  };
  return worst_of_greek_lane_of(t, block, lane, price, add_greeks);
}

}  // namespace mcprice
