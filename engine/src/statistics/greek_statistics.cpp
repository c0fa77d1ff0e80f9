#include "statistics/greek_statistics.hpp"

#include <algorithm>
#include <cmath>

namespace mcprice::detail {
namespace {

// The per-sample channels' means and covariance matrix (unbiased), in the order P, D, G.
struct channel_stats {
  double mean[3];
  double cov[3][3];
  double n;

  channel_stats(const moments& p, const greek_moments& g, std::int64_t samples)
      : mean{}, cov{}, n(static_cast<double>(samples))
  {
    double const sums[3] = {p.sum, g.sum_d, g.sum_g};
    double const cross[3][3] = {{p.sum_sq, g.pd, g.pg}, {g.pd, g.dd, g.dg}, {g.pg, g.dg, g.gg}};
    for (int i = 0; i < 3; ++i) mean[i] = sums[i] / n;
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 3; ++j) cov[i][j] = n > 1.0 ? (cross[i][j] - sums[i] * mean[j]) / (n - 1.0) : 0.0;
    }
  }

  // scale x (c . mean) and the standard error of that sample mean.
  [[nodiscard]] greek_estimate combine(const double (&c)[3], double scale) const
  {
    double value = 0.0;
    double var = 0.0;
    for (int i = 0; i < 3; ++i) {
      value += c[i] * mean[i];
      for (int j = 0; j < 3; ++j) var += c[i] * c[j] * cov[i][j];
    }
    return {scale * value, std::abs(scale) * std::sqrt(std::max(0.0, var) / n)};
  }
};

}  // namespace

trade_greeks make_greeks(const moments& price_sums, const greek_moments& greek_sums, std::int64_t samples, double scale,
                         const greek_inputs& in)
{
  channel_stats const st(price_sums, greek_sums, samples);
  double const s0 = in.spot;
  double const T = in.maturity;
  double const a = in.log_stdev;
  // With no variance to expiry the gamma channel carries no information (and the likelihood
  // ratio none at all): those Greeks are reported as 0.
  bool const has_variance = a > 0.0;
  // Per unit of each channel's mean: delta = cd D, gamma = cg G (vega from gamma by
  // vega = sigma T S0^2 gamma, which holds for every European payoff under GBM).
  double const cd = in.pathwise ? 1.0 / s0 : (has_variance ? 1.0 / (s0 * a) : 0.0);
  double const cg = !has_variance ? 0.0 : in.pathwise ? 1.0 / (s0 * s0 * a) : 1.0 / (s0 * s0 * a * a);
  double const sigma_sq_t = a * a;  // sigma^2 T
  trade_greeks g;
  g.method = in.pathwise ? greek_method::pathwise : greek_method::likelihood_ratio;
  g.delta = st.combine({0.0, cd, 0.0}, scale);
  g.gamma = st.combine({0.0, 0.0, cg}, scale);
  g.vega = T > 0.0 ? st.combine({0.0, 0.0, cg * s0 * s0 * std::sqrt(sigma_sq_t / T) * T}, scale) : greek_estimate{};
  // rho = T (S0 delta - V): the discount's T V and the forward's T S0 delta.
  g.rho = st.combine({-T, T * s0 * cd, 0.0}, scale);
  // theta = r V - (r - q) S0 delta - sigma^2 S0^2 gamma / 2 (the Black-Scholes equation).
  double const half_sigma_sq = T > 0.0 ? 0.5 * sigma_sq_t / T : 0.0;
  g.theta = st.combine({in.rate, -in.carry * s0 * cd, -half_sigma_sq * s0 * s0 * cg}, scale);
  return g;
}

greek_estimate estimate(const moments& m, std::int64_t samples, double scale)
{
  auto const n = static_cast<double>(samples);
  double const mean = m.sum / n;
  double const var = n > 1.0 ? std::max(0.0, (m.sum_sq - m.sum * mean) / (n - 1.0)) : 0.0;
  return greek_estimate{scale * mean, std::abs(scale) * std::sqrt(var / n)};
}

trade_greeks make_basket_greeks(const std::vector<moments>& channels, int n, std::int64_t samples, double scale)
{
  basket_channels const ch{n};
  auto at = [&](int c) { return estimate(channels[static_cast<std::size_t>(c)], samples, scale); };
  trade_greeks g;
  g.method = greek_method::central_bumps;
  for (int i = 0; i < n; ++i) {
    g.deltas.push_back(at(ch.delta(i)));
    g.gammas.push_back(at(ch.gamma(i)));
    g.vegas.push_back(at(ch.vega(i)));
  }
  for (int i = 0; i < n; ++i) {
    for (int j = i + 1; j < n; ++j) g.cross_gammas.push_back(at(ch.cross(i, j)));
  }
  g.correlation_vega = at(ch.correlation_vega());
  g.theta = at(ch.theta());
  g.rho = at(ch.rho());
  return g;
}

trade_greeks make_path_greeks(const path_greek_moments& sums, std::int64_t samples, double scale, greek_method method)
{
  auto const estimate = [&](const moments& m) { return detail::estimate(m, samples, scale); };
  trade_greeks g;
  g.method = method;
  g.delta = estimate(sums.delta);
  g.gamma = estimate(sums.gamma);
  g.vega = estimate(sums.vega);
  g.theta = estimate(sums.theta);
  g.rho = estimate(sums.rho);
  return g;
}

}  // namespace mcprice::detail
