#include "market/market_snapshot.hpp"

namespace mcprice::detail {
namespace {

void put_curve(std::vector<double>& out, const std::vector<double>& times, const std::vector<double>& values)
{
  out.push_back(static_cast<double>(times.size()));
  out.insert(out.end(), times.begin(), times.end());
  out.insert(out.end(), values.begin(), values.end());
}

}  // namespace

std::vector<double> flatten_market(const market_data& m)
{
  std::vector<double> out;
  std::size_t const n = m.assets().size();
  out.push_back(static_cast<double>(n));
  put_curve(out, m.discount().pillar_times(), m.discount().pillar_rates());
  for (const asset& a : m.assets()) {
    out.push_back(a.spot);
    put_curve(out, a.dividend.pillar_times(), a.dividend.pillar_rates());
    put_curve(out, a.vol.pillar_times(), a.vol.pillar_vols());
    out.push_back(static_cast<double>(a.model));  // 0 gbm, 1 heston, 2 local_vol
    out.insert(out.end(), {a.heston.v0, a.heston.kappa, a.heston.theta, a.heston.xi, a.heston.rho});
    jump_params const j = a.jumps.value_or(jump_params{});
    out.insert(out.end(), {a.jumps ? 1.0 : 0.0, j.intensity, j.mean, j.vol});
    const implied_vol_surface& s = a.surface;
    out.insert(out.end(), {static_cast<double>(s.expiries.size()), static_cast<double>(s.strikes.size())});
    out.insert(out.end(), s.expiries.begin(), s.expiries.end());
    out.insert(out.end(), s.strikes.begin(), s.strikes.end());
    for (auto const& row : s.vols) out.insert(out.end(), row.begin(), row.end());
  }
  std::size_t const count_at = out.size();
  out.push_back(0.0);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = i + 1; j < n; ++j) {
      if (m.correlation(i, j) != 0.0)
        out.insert(out.end(), {static_cast<double>(i), static_cast<double>(j), m.correlation(i, j)});
    }
  }
  out[count_at] = static_cast<double>((out.size() - count_at - 1) / 3);
  return out;
}

}  // namespace mcprice::detail
