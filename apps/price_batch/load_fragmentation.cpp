#include "load_fragmentation.hpp"

#include <algorithm>

namespace mcprice::load {
namespace {

double minus(std::size_t a, std::size_t b) { return a > b ? static_cast<double>(a - b) : 0.0; }

// Each sample holds from its time to the next sample's; the last one has no duration.
template <typename F>
double time_weighted(const std::vector<memory_sample>& s, F&& value, double& total)
{
  double sum = 0.0;
  total = 0.0;
  for (std::size_t i = 0; i + 1 < s.size(); ++i) {
    double const dt = std::max(0.0, s[i + 1].t_s - s[i].t_s);
    sum += value(s[i]) * dt;
    total += dt;
  }
  return total > 0.0 ? sum / total : 0.0;
}

}  // namespace

fragmentation fragmentation_of(const memory_sample& s)
{
  fragmentation f;
  f.internal = minus(s.granted, s.requested);
  f.cached_unused = minus(s.reserved, s.granted);
  f.external = s.largest_free > 0 ? std::max(0.0, f.cached_unused - static_cast<double>(s.largest_free)) : 0.0;
  f.non_releasable = static_cast<double>(s.pending_free);
  f.reserved = static_cast<double>(s.reserved);
  return f;
}

fragmentation fragmentation_at_peak(const std::vector<memory_sample>& samples)
{
  if (samples.empty()) return {};
  auto const peak =
      std::max_element(samples.begin(), samples.end(),
                       [](const memory_sample& a, const memory_sample& b) { return a.reserved < b.reserved; });
  return fragmentation_of(*peak);
}

fragmentation fragmentation_time_weighted(const std::vector<memory_sample>& samples)
{
  fragmentation f;
  double total = 0.0;
  f.internal = time_weighted(
      samples, [](auto const& s) { return fragmentation_of(s).internal; }, total);
  f.cached_unused = time_weighted(
      samples, [](auto const& s) { return fragmentation_of(s).cached_unused; }, total);
  f.external = time_weighted(
      samples, [](auto const& s) { return fragmentation_of(s).external; }, total);
  f.non_releasable = time_weighted(
      samples, [](auto const& s) { return fragmentation_of(s).non_releasable; }, total);
  f.reserved = time_weighted(
      samples, [](auto const& s) { return static_cast<double>(s.reserved); }, total);
  return f;
}

double device_idle_fraction(const std::vector<memory_sample>& samples)
{
  bool const known = samples.size() >= 2 &&
                     std::all_of(samples.begin(), samples.end(), [](auto const& s) { return s.streams_busy >= 0; });
  if (!known) return -1.0;
  double total = 0.0;
  double const idle = time_weighted(
      samples, [](auto const& s) { return s.streams_busy == 0 ? 1.0 : 0.0; }, total);
  return total > 0.0 ? idle : -1.0;
}

}  // namespace mcprice::load
