#pragma once
// Local volatility paths (Dupire) for every single-asset product: log Euler steps on the trade's
// pricing grid (its fixings and `steps` equal steps to maturity, as for Heston; docs/models.md),
// each step's vol read from the asset's local vol grid at the step's start by bilinear
// interpolation in (t, ln S/S_0), flat beyond the grid (the time rows and weight of each step
// from the host). The path state (Asian sums, barrier
// survival with the bridge on the step's variance, lookback extremes) is the GBM path engine's.
#include "mcprice/kernels/models/path_gbm.hpp"

#include <cstdint>

namespace mcprice {

// A grid's value at one node with the slope to the next in x: a lookup reads one pair per time
// row (the last point of a row has slope 0, so a lookup needs no upper clamp on the index).
template <typename Real>
struct alignas(2 * sizeof(Real)) basic_vol_pair {
  Real value;
  Real slope;
};

// Where a trade's asset's grid is in the surface table (in pairs), and its axes: times
// t_i = i / time_scale (i < times), log spots x_j = x0 + j / x_scale (j < points), row-major by time.
template <typename Real>
struct basic_local_vol_axes {
  std::int32_t first;
  std::int32_t times;
  std::int32_t points;
  Real time_scale;
  Real x0;
  Real x_scale;
};

// One step of a local-vol trade's grid, from t_{i-1} to t_i. Its vol is read at t_{i-1}: the
// time rows row and row + points blended by weight, worked out on the host (the same for every
// grid of the asset, which share the time axis).
template <typename Real>
struct alignas(16) basic_local_vol_step {
  Real log_forward;  // ln(F(t_i) / F(t_{i-1}))
  Real dt;
  Real root_dt;
  Real hit_value;    // P(0,t_i)/P(0,T)
  Real weight;       // of the later time row
  // A GBM asset of a worst-of beside local-vol ones: its exact step's vol, sqrt(dw / dt), read
  // where its axes have no times (local_vol_worst_of_path.hpp). In the padding: the row stays
  // 32 bytes in float.
  Real vol;
  std::int32_t row;  // the earlier time row's first pair, relative to the grid's
  std::uint8_t fixing;
};

// An observation row of a local-vol step table keeps its levels in log_forward and dt.
template <typename Real>
MCPRICE_HD MCPRICE_INLINE auto observation_levels(const basic_local_vol_step<Real>& r)
{
  return basic_call_levels<Real>{r.log_forward, r.dt};
}
template <typename Real>
void set_observation_levels(basic_local_vol_step<Real>& r, Real call, Real coupon)
{
  r.log_forward = call;
  r.dt = coupon;
}

// The sticky-strike scenarios' grids (asset::local_vol_bumped): spot +-1%, implied vols +-0.01,
// rate +-1e-3. Set with --greeks only.
inline constexpr int local_vol_bumped_grids = 6;

template <typename Real>
struct basic_local_vol_trade : basic_path_gbm_trade<Real> {
  basic_local_vol_axes<Real> surface;
  basic_local_vol_axes<Real> bumped[local_vol_bumped_grids];
  Real maturity;
  Real rate;  // the zero rate to maturity
};

// sigma at log spot x between time rows `row` and row + points of grid g, `weight` of the later:
// linear in x within each row (one pair each), then in time.
template <typename Real>
MCPRICE_HD MCPRICE_INLINE Real local_vol_between_rows(const basic_local_vol_axes<Real>& g,
                                                      const basic_vol_pair<Real>* table, std::int32_t row, Real weight,
                                                      Real x)
{
  Real const v = math::fmin(math::fmax((x - g.x0) * g.x_scale, Real(0)), static_cast<Real>(g.points - 1));
  int const j = static_cast<int>(v);
  Real const b = v - static_cast<Real>(j);
  const basic_vol_pair<Real>* at = table + g.first + row + j;
  basic_vol_pair<Real> const early = at[0];
  basic_vol_pair<Real> const late = at[g.points];
  Real const lo = math::fma(b, early.slope, early.value);
  Real const hi = math::fma(b, late.slope, late.value);
  return math::fma(weight, hi - lo, lo);
}

// The time rows and weight of time t on g's axis (flat beyond it); g has at least two times.
template <typename Real>
struct local_vol_time {
  std::int32_t row;
  Real weight;
};
template <typename Real>
MCPRICE_HD MCPRICE_INLINE local_vol_time<Real> local_vol_time_of(const basic_local_vol_axes<Real>& g, Real t)
{
  Real const u = math::fmin(math::fmax(t * g.time_scale, Real(0)), static_cast<Real>(g.times - 1));
  int const i = static_cast<int>(u) < g.times - 1 ? static_cast<int>(u) : g.times - 2;
  return {i * g.points, u - static_cast<Real>(i)};
}

// sigma(t, x) by bilinear interpolation (the exercise walk's lookup, whose substeps carry no rows).
template <typename Real>
MCPRICE_HD MCPRICE_INLINE Real local_vol_at(const basic_local_vol_axes<Real>& g, const basic_vol_pair<Real>* table,
                                            Real t, Real x)
{
  local_vol_time<Real> const at = local_vol_time_of(g, t);
  return local_vol_between_rows(g, table, at.row, at.weight, x);
}

// A log-Euler increment with vol sigma over dt with normal z; var: the step's variance (the
// bridge's).
template <typename Real>
MCPRICE_HD MCPRICE_INLINE Real local_vol_increment(Real sigma, Real log_forward, Real dt, Real root_dt, Real z,
                                                   Real& var)
{
  var = rounded_product(rounded_product(sigma, sigma), dt);
  return log_forward - rounded_product(Real(0.5), var) + rounded_product(rounded_product(sigma, root_dt), z);
}

// A step's log increment from log spot x with normal z on grid g.
template <typename Real>
MCPRICE_HD MCPRICE_INLINE Real local_vol_increment(const basic_local_vol_axes<Real>& g,
                                                   const basic_vol_pair<Real>* table,
                                                   const basic_local_vol_step<Real>& s, Real x, Real z, Real& var)
{
  Real const sigma = local_vol_between_rows(g, table, s.row, s.weight, x);
  return local_vol_increment(sigma, s.log_forward, s.dt, s.root_dt, z, var);
}

template <typename NormalStream, path_product Product, bool Antithetic, typename Real>
MCPRICE_HD MCPRICE_INLINE Real local_vol_sample(const basic_local_vol_trade<Real>& h,
                                                const basic_local_vol_step<Real>* grid,
                                                const basic_vol_pair<Real>* table, std::uint64_t group)
{
  const basic_path_gbm_trade<Real>& t = h;
  NormalStream rng(t.key, group);
  auto a = basic_path_state<Real>::start(t);
  auto b = a;
  const basic_local_vol_step<Real>* steps = grid + t.first_step;
  auto const levels = observation_rows_of(steps, t);
  // Local-vol assets carry no jumps: the walk hands no_jump.
  for_path_step_normals<Product>(t, rng, [&](int k, Real z, Real u, auto) {
    basic_local_vol_step<Real> const s = steps[k];
    Real var(0);
    Real const dx = local_vol_increment(h.surface, table, s, a.x, z, var);
    a.template move<Product>(t, t.log_barrier, dx, var, s.fixing, s.hit_value, u, levels);
    if constexpr (Antithetic) {
      Real const dx_b = local_vol_increment(h.surface, table, s, b.x, -z, var);
      b.template move<Product>(t, t.log_barrier, dx_b, var, s.fixing, s.hit_value, u, levels);
    }
  }, open_until_settled<Product, Antithetic>(a, b));
  Real const up = a.template settle<Product>(t);
  if constexpr (!Antithetic) return up;
  else return Real(0.5) * (up + b.template settle<Product>(t));
}

// Structured = false: a lane of a request without autocallables or cliquets (with_path_product).
template <typename NormalStream, bool Structured = true, typename Real>
MCPRICE_HD MCPRICE_INLINE moments local_vol_lane(const basic_local_vol_trade<Real>& h,
                                                 const basic_local_vol_step<Real>* grid,
                                                 const basic_vol_pair<Real>* table, std::int64_t block, int lane)
{
  return own_subsequence_lane(h.samples, block, lane, [&](std::uint64_t subsequence) {
    return with_path_product<true, Structured>(h.product, [&](auto product) {
      constexpr path_product p = decltype(product)::value;
      return h.antithetic ? local_vol_sample<NormalStream, p, true>(h, grid, table, subsequence)
                          : local_vol_sample<NormalStream, p, false>(h, grid, table, subsequence);
    });
  });
}

}  // namespace mcprice
