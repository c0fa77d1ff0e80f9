#include "market/local_vol_surface.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace mcprice::detail {

total_variance_surface::total_variance_surface(const implied_vol_surface& s,
                                               const std::function<double(double)>& log_forward)
    : expiries_(s.expiries)
{
  for (std::size_t i = 0; i < s.expiries.size(); ++i) {
    double const t = s.expiries[i];
    spline sp;
    for (std::size_t j = 0; j < s.strikes.size(); ++j) {
      // Strikes and spot enter as K / S_0 through log_forward; the reader keeps them positive.
      sp.k.push_back(std::log(s.strikes[j]) - log_forward(t));
      sp.w.push_back(s.vols[i][j] * s.vols[i][j] * t);
      largest_vol_ = std::max(largest_vol_, s.vols[i][j]);
    }
    // Natural cubic spline: second derivatives from the tridiagonal system (Thomas algorithm).
    std::size_t const n = sp.k.size();
    sp.second.assign(n, 0.0);
    if (n > 2) {
      std::vector<double> c(n, 0.0);
      std::vector<double> d(n, 0.0);
      for (std::size_t j = 1; j + 1 < n; ++j) {
        double const h0 = sp.k[j] - sp.k[j - 1];
        double const h1 = sp.k[j + 1] - sp.k[j];
        double const rhs = 6.0 * ((sp.w[j + 1] - sp.w[j]) / h1 - (sp.w[j] - sp.w[j - 1]) / h0);
        double const diag = 2.0 * (h0 + h1) - h0 * c[j - 1];
        c[j] = h1 / diag;
        d[j] = (rhs - h0 * d[j - 1]) / diag;
      }
      for (std::size_t j = n - 2; j >= 1; --j) sp.second[j] = d[j] - c[j] * sp.second[j + 1];
    }
    splines_.push_back(std::move(sp));
  }
}

namespace {

// w beyond an expiry's last strike on one side, `d` >= 0 past it: it leaves the edge's value
// `edge` with the spline's outward slope `s` and no curvature. Rising outward it goes on as a
// line (concave, it would leave the arbitrage-free set: a negative Dupire denominator); falling,
// it levels off as edge + s L tanh(d / L), L = edge / (2 |s|), within half the edge's variance
// (convex). Flat implied vol from the edge on (the slope dropping to 0 there) would put a point
// mass in the density at the edge strike, which no diffusion reprices (docs/models.md).
// Returns {w, dw/dd, d2w/dd2}.
struct wing_point {
  double w, slope, curvature;
};

wing_point wing(double edge, double s, double d)
{
  if (s == 0.0 || !(edge > 0.0)) return {edge, 0.0, 0.0};
  if (s > 0.0) return {edge + s * d, s, 0.0};
  double const scale = edge / (2.0 * std::abs(s));
  double const th = std::tanh(d / scale);
  double const sech2 = 1.0 - th * th;
  return {edge + s * scale * th, s * sech2, -2.0 * s * th * sech2 / scale};
}

}  // namespace

total_variance_point total_variance_surface::spline::at(double x) const
{
  std::size_t const n = k.size();
  if (n == 1) return {w.front(), 0.0, 0.0, 0.0};
  if (x < k.front()) {
    wing_point const p = wing(w.front(), -inside(0, k.front()).w_k, k.front() - x);
    return {p.w, -p.slope, p.curvature, 0.0};
  }
  if (x > k.back()) {
    wing_point const p = wing(w.back(), inside(n - 2, k.back()).w_k, x - k.back());
    return {p.w, p.slope, p.curvature, 0.0};
  }
  return inside(static_cast<std::size_t>(std::upper_bound(k.begin(), k.end(), x) - k.begin()) - 1, x);
}

// The cubic between strikes j and j + 1 (j = n - 1 at the last strike itself: the piece before).
total_variance_point total_variance_surface::spline::inside(std::size_t j, double x) const
{
  j = std::min(j, k.size() - 2);
  double const h = k[j + 1] - k[j];
  double const a = (k[j + 1] - x) / h;
  double const b = (x - k[j]) / h;
  double const value =
      a * w[j] + b * w[j + 1] + ((a * a * a - a) * second[j] + (b * b * b - b) * second[j + 1]) * h * h / 6.0;
  double const slope =
      (w[j + 1] - w[j]) / h + ((1.0 - 3.0 * a * a) * second[j] + (3.0 * b * b - 1.0) * second[j + 1]) * h / 6.0;
  double const curvature = a * second[j] + b * second[j + 1];
  return {value, slope, curvature, 0.0};
}

total_variance_point total_variance_surface::at(double k, double t) const
{
  std::size_t const n = expiries_.size();
  if (t <= expiries_.front() || n == 1) {
    // Flat implied vol in time before the first expiry (and after it with a single expiry).
    total_variance_point p = splines_.front().at(k);
    double const scale = t / expiries_.front();
    return {p.w * scale, p.w_k * scale, p.w_kk * scale, p.w / expiries_.front()};
  }
  if (t >= expiries_.back()) {
    total_variance_point p = splines_.back().at(k);
    double const scale = t / expiries_.back();
    return {p.w * scale, p.w_k * scale, p.w_kk * scale, p.w / expiries_.back()};
  }
  std::size_t const i =
      static_cast<std::size_t>(std::upper_bound(expiries_.begin(), expiries_.end(), t) - expiries_.begin()) - 1;
  double const span = expiries_[i + 1] - expiries_[i];
  double const b = (t - expiries_[i]) / span;
  total_variance_point const lo = splines_[i].at(k);
  total_variance_point const hi = splines_[i + 1].at(k);
  return {lo.w + b * (hi.w - lo.w), lo.w_k + b * (hi.w_k - lo.w_k), lo.w_kk + b * (hi.w_kk - lo.w_kk),
          (hi.w - lo.w) / span};
}

double dupire_local_vol(const total_variance_point& p, double k)
{
  double const floor2 = local_vol_floor * local_vol_floor;
  if (!(p.w > 0.0) || !(p.w_t > 0.0)) return local_vol_floor;
  double const r = k / p.w;
  double const g = 1.0 - r * p.w_k + 0.25 * (-0.25 - 1.0 / p.w + r * r) * p.w_k * p.w_k + 0.5 * p.w_kk;
  if (!(g > 0.0)) return local_vol_cap;
  double const variance = std::clamp(p.w_t / g, floor2, local_vol_cap * local_vol_cap);
  return std::sqrt(variance);
}

local_vol_grid make_local_vol_grid(const implied_vol_surface& s, double spot,
                                   const std::function<double(double)>& log_forward)
{
  total_variance_surface const surface(s, [&](double t) { return std::log(spot) + log_forward(t); });
  local_vol_grid g;
  g.times = 101;
  g.points = 201;
  double const horizon = std::max(2.0 * surface.last_expiry(), 1.0);
  g.time_step = horizon / (g.times - 1);
  double const drift = std::abs(log_forward(horizon));
  double const half_width = 6.0 * std::min(surface.largest_vol(), 2.0) * std::sqrt(horizon) + drift;
  g.x0 = -half_width;
  g.x_step = 2.0 * half_width / (g.points - 1);
  g.vols.reserve(static_cast<std::size_t>(g.times) * g.points);
  for (int i = 0; i < g.times; ++i) {
    // The first row at half a grid step: at t = 0 the total variance vanishes.
    double const t = i == 0 ? 0.5 * g.time_step : i * g.time_step;
    double const forward = log_forward(t);
    for (int j = 0; j < g.points; ++j) {
      double const k = g.x0 + j * g.x_step - forward;
      g.vols.push_back(dupire_local_vol(surface.at(k, t), k));
    }
  }
  return g;
}

std::vector<local_vol_grid> make_bumped_local_vol_grids(const implied_vol_surface& s, double spot,
                                                        const std::function<double(double)>& log_forward)
{
  std::vector<local_vol_grid> out;
  for (double const side : {1.0, -1.0})
    out.push_back(make_local_vol_grid(s, spot * (1.0 + side * local_vol_spot_bump), log_forward));
  for (double const side : {1.0, -1.0}) {
    implied_vol_surface moved = s;
    // A vol below the bump keeps a sliver of itself: the reader admits positive vols only.
    for (auto& row : moved.vols) {
      for (double& v : row) v = std::max(v + side * local_vol_vol_bump, 0.1 * v);
    }
    out.push_back(make_local_vol_grid(moved, spot, log_forward));
  }
  for (double const side : {1.0, -1.0}) {
    double const dr = side * local_vol_rate_bump;
    out.push_back(make_local_vol_grid(s, spot, [&](double t) { return log_forward(t) + dr * t; }));
  }
  return out;
}

}  // namespace mcprice::detail
