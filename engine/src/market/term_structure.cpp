#include "mcprice/term_structure.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace mcprice {
namespace {

// Linear interpolation of y over x, flat outside [x.front(), x.back()].
double interpolate_flat_ends(const std::vector<double>& x, const std::vector<double>& y, double t)
{
  if (x.empty()) return y.front();
  if (t <= x.front()) return y.front();
  if (t >= x.back()) return y.back();
  auto const hi = static_cast<std::size_t>(std::upper_bound(x.begin(), x.end(), t) - x.begin());
  std::size_t const lo = hi - 1;
  double const a = (t - x[lo]) / (x[hi] - x[lo]);
  return y[lo] + a * (y[hi] - y[lo]);
}

}  // namespace

rate_curve rate_curve::flat(double rate)
{
  rate_curve c;
  c.rates_ = {rate};
  return c;
}

rate_curve::rate_curve(std::vector<double> times, std::vector<double> rates)
    : times_(std::move(times)), rates_(std::move(rates))
{
}

double rate_curve::zero_rate(double t) const { return interpolate_flat_ends(times_, rates_, t); }

double rate_curve::discount(double t) const { return std::exp(-zero_rate(t) * t); }

vol_curve vol_curve::flat(double vol)
{
  vol_curve c;
  c.vols_ = {vol};
  return c;
}

vol_curve::vol_curve(std::vector<double> times, std::vector<double> vols)
    : times_(std::move(times)), vols_(std::move(vols))
{
  for (std::size_t i = 0; i < times_.size(); ++i) variances_.push_back(vols_[i] * vols_[i] * times_[i]);
}

double vol_curve::total_variance(double t) const
{
  if (t <= 0.0) return 0.0;
  // Flat vol outside the pillars; inside, total variance is linear between the pillars' own.
  if (times_.empty() || t <= times_.front()) return vols_.front() * vols_.front() * t;
  if (t >= times_.back()) return vols_.back() * vols_.back() * t;
  return interpolate_flat_ends(times_, variances_, t);
}

double vol_curve::vol(double t) const
{
  if (t <= 0.0) return vols_.front();  // the short end's vol
  return std::sqrt(total_variance(t) / t);
}

int vol_curve::first_decreasing_pillar() const
{
  for (std::size_t i = 1; i < variances_.size(); ++i) {
    if (variances_[i] < variances_[i - 1]) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace mcprice
