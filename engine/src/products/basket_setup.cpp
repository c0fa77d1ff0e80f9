#include "products/basket_setup.hpp"

#include "mcprice/kernels/greeks/basket_greeks.hpp"
#include "products/stream_keys.hpp"

#include <Eigen/Eigenvalues>

#include <algorithm>
#include <cmath>

namespace mcprice::detail {
namespace {

// A = V sqrt(D) from C = V D V^T, row-major: exact for positive semi-definite C (negative
// eigenvalues, from rounding or a bumped matrix, are clipped to zero).
template <typename Real>
void append_factor(const Eigen::MatrixXd& c, std::vector<Real>& out)
{
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(c);
  Eigen::MatrixXd const a = eig.eigenvectors() * eig.eigenvalues().cwiseMax(0.0).cwiseSqrt().asDiagonal();
  for (int i = 0; i < c.rows(); ++i) {
    for (int j = 0; j < c.cols(); ++j) out.push_back(static_cast<Real>(a(i, j)));
  }
}

Eigen::MatrixXd correlation_matrix(const market_data& market, const std::vector<std::size_t>& idx)
{
  auto const n = static_cast<Eigen::Index>(idx.size());
  Eigen::MatrixXd c(n, n);
  for (Eigen::Index i = 0; i < n; ++i) {
    for (Eigen::Index j = 0; j < n; ++j)
      c(i, j) = market.correlation(idx[static_cast<std::size_t>(i)], idx[static_cast<std::size_t>(j)]);
  }
  return c;
}

}  // namespace

double basket_weight(const trade& t, std::size_t i, std::size_t n)
{
  if (!t.weights.empty()) return t.weights[i];
  return t.product == product_kind::basket ? 1.0 / static_cast<double>(n) : 1.0;
}

template <typename Real>
std::vector<Real> correlation_factor(const market_data& market, const std::vector<std::size_t>& assets, bool with_bumps)
{
  std::vector<Real> out;
  Eigen::MatrixXd const c = correlation_matrix(market, assets);
  append_factor(c, out);
  if (!with_bumps) return out;
  // Correlation vega's scenarios: every pairwise correlation +-h (clamped to [-1, 1]).
  // The kernel divides by its own precision's bump (basket_bumps<Real>), so the host moves by it.
  constexpr double bump = basket_bumps<Real>::correlation;
  for (double const h : {bump, -bump}) {
    Eigen::MatrixXd bumped = c;
    for (Eigen::Index i = 0; i < c.rows(); ++i) {
      for (Eigen::Index j = 0; j < c.cols(); ++j) {
        if (i != j) bumped(i, j) = std::clamp(c(i, j) + h, -1.0, 1.0);
      }
    }
    append_factor(bumped, out);
  }
  return out;
}
template std::vector<float> correlation_factor<float>(const market_data&, const std::vector<std::size_t>&, bool);
template std::vector<double> correlation_factor<double>(const market_data&, const std::vector<std::size_t>&, bool);

template <typename Real>
basic_basket_job<Real> make_basket_job(const trade& t, const market_data& market, const engine_options& opt)
{
  auto const n = static_cast<int>(t.underlyings.size());
  double const T = t.maturity;
  basic_basket_job<Real> job{};
  std::vector<std::size_t> idx;
  for (int i = 0; i < n; ++i) {
    std::size_t const k = *market.find(t.underlyings[static_cast<std::size_t>(i)]);
    idx.push_back(k);
    const asset& a = market.assets()[k];
    double const w = a.vol.total_variance(T);
    double const log_fwd = market.log_forward(a, T);
    double const weight = basket_weight(t, static_cast<std::size_t>(i), static_cast<std::size_t>(n));
    job.assets.push_back({static_cast<Real>(a.spot), static_cast<Real>(log_fwd - 0.5 * w),
                          static_cast<Real>(std::sqrt(w)), static_cast<Real>(weight)});
  }
  bool const greeks = opt.greeks && n <= max_basket_greek_assets;
  job.factor = correlation_factor<Real>(market, idx, greeks);

  basic_basket_gbm_trade<Real>& k = job.kernel;
  k.key = stream_key(t, opt, 1, static_cast<int>(t.underlyings.size()));
  std::int64_t const requested = t.paths.value_or(opt.paths);
  k.antithetic = opt.antithetic ? 1 : 0;
  k.samples = opt.antithetic ? (requested + 1) / 2 : requested;
  job.paths = opt.antithetic ? 2 * k.samples : k.samples;
  k.assets = n;
  k.strike = static_cast<Real>(t.strike.value_or(0.0));
  k.payoff = t.product == product_kind::basket     ? basket_payoff::basket
             : t.product == product_kind::best_of  ? basket_payoff::best_of
             : t.product == product_kind::worst_of ? basket_payoff::worst_of
                                                   : basket_payoff::spread;
  k.call = t.type == option_type::call ? 1 : 0;
  k.greeks = greeks ? 1 : 0;
  k.maturity = static_cast<Real>(T);
  k.rate = static_cast<Real>(-std::log(market.discount().discount(T)) / T);
  job.scale = market.discount().discount(T) * t.notional;
  return job;
}

template basket_job make_basket_job<float>(const trade&, const market_data&, const engine_options&);
template basket_job_f64 make_basket_job<double>(const trade&, const market_data&, const engine_options&);

}  // namespace mcprice::detail
