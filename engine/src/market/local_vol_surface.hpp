#pragma once
// Dupire local volatility from an implied volatility surface (docs/models.md): total implied
// variance w(k, T) over forward log-moneyness k = ln(K / F(T)), by natural cubic splines in k at
// each expiry and linear interpolation in T between expiries, then Gatheral's formula
//   sigma^2 = w_T / (1 - k w_k / w + (-1/4 - 1/w + k^2 / w^2) w_k^2 / 4 + w_kk / 2),
// tabulated on a uniform (t, ln S/S_0) grid that the kernels read bilinearly.
#include "mcprice/market.hpp"

#include <functional>
#include <vector>

namespace mcprice::detail {

// w and its derivatives at (k, T).
struct total_variance_point {
  double w, w_k, w_kk, w_t;
};

// The surface's interpolation, with its extrapolation: beyond the strikes of an expiry w leaves
// the edge with the spline's slope and no curvature, as a line where it rises outward and
// levelling off where it falls (local_vol_surface.cpp's `wing`), and in time flat implied vol
// before the first expiry and after the last (w proportional to T). `log_forward(T)`: ln F(T).
class total_variance_surface {
 public:
  total_variance_surface(const implied_vol_surface& s, const std::function<double(double)>& log_forward);
  [[nodiscard]] total_variance_point at(double k, double t) const;
  [[nodiscard]] double last_expiry() const { return expiries_.back(); }
  [[nodiscard]] double largest_vol() const { return largest_vol_; }

 private:
  struct spline {  // natural cubic spline of w in k at one expiry
    std::vector<double> k, w, second;
    [[nodiscard]] total_variance_point at(double x) const;
    [[nodiscard]] total_variance_point inside(std::size_t j, double x) const;
  };
  std::vector<double> expiries_;
  std::vector<spline> splines_;
  double largest_vol_{0.0};
};

// Local variance from Gatheral's formula, clamped to vols in [local_vol_floor, local_vol_cap]
// where the denominator or the slope in time is not positive (a surface whose interpolation
// leaves the arbitrage-free set between grid points).
inline constexpr double local_vol_floor = 0.01;
inline constexpr double local_vol_cap = 5.0;
double dupire_local_vol(const total_variance_point& p, double k);

// The asset's local vol grid: 101 times over [0, max(2 x last expiry, 1 year)] and 201 log spots
// over six standard deviations (at the surface's largest vol) around the forward's path.
// `log_forward(t)`: ln(F(t) / S_0).
local_vol_grid make_local_vol_grid(const implied_vol_surface& s, double spot,
                                   const std::function<double(double)>& log_forward);

// The grids of the sticky-strike scenarios (asset::local_vol_bumped, in that order): the surface
// held in absolute strike, the spot moved by +-spot_bump (relative), every implied vol by
// +-vol_bump, the forward's rate by +-rate_bump. Each grid's x axis is ln(S / S_0') of its own
// spot S_0'.
inline constexpr double local_vol_spot_bump = 0.01;
inline constexpr double local_vol_vol_bump = 0.01;
inline constexpr double local_vol_rate_bump = 1e-3;
std::vector<local_vol_grid> make_bumped_local_vol_grids(const implied_vol_surface& s, double spot,
                                                        const std::function<double(double)>& log_forward);

}  // namespace mcprice::detail
