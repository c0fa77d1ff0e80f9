// Heston Europeans by conditional Monte Carlo (heston_conditional.hpp): the variance draws'
// inverse normal, the conditional payoff against quadrature over the log spot's normal, and the
// estimator against the full QE scheme that also steps the log spot (same expectation, smaller
// variance).
#include "mcprice/kernels/models/heston_conditional.hpp"
#include "catch.hpp"
#include "heston_reference.hpp"
#include "mcprice/kernels/rng/host_normal_stream.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

using namespace mcprice;
using namespace mcprice::testing;

namespace {

double normal_cdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

// N^-1(p) in double by Newton's method from a rough start.
double inverse_normal_cdf(double p)
{
  double z = p < 0.5 ? -std::sqrt(-2.0 * std::log(p)) + 1.0 : std::sqrt(-2.0 * std::log(1.0 - p)) - 1.0;
  for (int i = 0; i < 60; ++i) {
    double const pdf = std::exp(-0.5 * z * z) / std::sqrt(2.0 * M_PI);
    double const f = p < 0.5 ? normal_cdf(z) - p : -(normal_cdf(-z) - (1.0 - p));
    z -= f / pdf;
  }
  return z;
}

double payoff_at(const path_gbm_trade& t, double s_t)
{
  bool const in = t.call ? s_t > t.strike : s_t < t.strike;
  if (t.digital == 1) return in ? t.rebate : 0.0;
  if (t.digital == 2) return in ? s_t : 0.0;
  return t.call ? std::max(s_t - t.strike, 0.0) : std::max(t.strike - s_t, 0.0);
}

// E[payoff(S_0 exp(x + sqrt(w) Z))] by Simpson's rule on each side of the strike's z.
double quadrature(const path_gbm_trade& t, double x, double w)
{
  double const sd = std::sqrt(w);
  double const cut =
      std::clamp((std::log(static_cast<double>(t.strike) / static_cast<double>(t.spot)) - x) / sd, -12.0, 12.0);
  auto integral = [&](double lo, double hi) {
    int const n = 20000;
    double const h = (hi - lo) / n;
    auto f = [&](double z) {
      return payoff_at(t, t.spot * std::exp(x + sd * z)) * std::exp(-0.5 * z * z) / std::sqrt(2.0 * M_PI);
    };
    // The ends a little inside: the payoff's one-sided values at the strike.
    double sum = f(lo + 1e-9 * (hi - lo)) + f(hi - 1e-9 * (hi - lo));
    for (int k = 1; k < n; ++k) sum += (k % 2 == 1 ? 4.0 : 2.0) * f(lo + k * h);
    return sum * h / 3.0;
  };
  return integral(-12.0, cut) + integral(cut, 12.0);
}

path_gbm_trade european(bool call, std::uint8_t digital, float strike)
{
  path_gbm_trade t{};
  t.spot = 100.0F;
  t.strike = strike;
  t.rebate = 7.0F;
  t.product = path_product::european;
  t.call = call ? 1 : 0;
  t.digital = digital;
  return t;
}

}  // namespace

TEST_CASE("the variance draws' normal is the inverse normal CDF of its bits, and the complement's is its negative")
{
  double worst = 0.0;
  auto check = [&](std::uint32_t bits) {
    double const u = (static_cast<double>(bits) + 0.5) / 4294967296.0;
    // The draw is evaluated on the smaller tail from the bits themselves, so compare there.
    double const ref = inverse_normal_cdf(u);
    float const z = normal_from_bits(bits);
    double const err = std::abs(z - ref) / std::max(1.0, std::abs(ref));
    INFO("bits " << bits << ": z " << z << ", N^-1 " << ref);
    // Giles' polynomials are fitted down to tails of 2^-24 (float's 1 - x); below that, a
    // probability of 6e-8 a draw, the normal is still within 1e-3 relative.
    if (std::min(u, 1.0 - u) >= 0x1p-24) {
      REQUIRE(err < 2e-6);
      worst = std::max(worst, err);
    } else {
      REQUIRE(err < 1e-3);
    }
    REQUIRE(normal_from_bits(~bits) == -z);
    // The exponential branch's uniforms: (bits + 1/2) / 2^32 and its complement's, the smaller
    // to float's relative precision (it is the inverse normal's tail), the larger within 2^-24;
    // the complemented bits swap them exactly.
    bits_draw const d = draw_from_bits(bits);
    bits_draw const c = draw_from_bits(~bits);
    double const smaller = std::min(u, 1.0 - u);
    REQUIRE(std::abs(std::min(d.uniform, d.complement) - smaller) <= 0x1p-23 * smaller);
    REQUIRE(std::abs(d.uniform - u) <= 0x1p-24);
    REQUIRE(std::abs(d.complement - (1.0 - u)) <= 0x1p-24);
    REQUIRE((c.uniform == d.complement && c.complement == d.uniform && c.z == -d.z));
  };
  for (std::uint64_t b = 0; b < (std::uint64_t{1} << 32); b += 65537) check(static_cast<std::uint32_t>(b));
  for (std::uint32_t b = 0; b < 4096; ++b) {
    check(b);
    check(0x80000000U - 1U - b);
    check(0xFFFFFFFFU - b);
  }
  INFO("worst error " << worst);
  CHECK(worst < 1e-6);
  // Monotone across the sign change.
  float previous = normal_from_bits(0x7FFF0000U);
  for (std::uint32_t b = 0x7FFF0001U; b < 0x80010000U; ++b) {
    float const z = normal_from_bits(b);
    REQUIRE(z >= previous);
    previous = z;
  }
}

TEST_CASE("the conditional payoff is the payoff's expectation over the log spot's normal")
{
  struct point {
    double x, w;
  };
  point const points[] = {{0.0, 0.04}, {0.05, 0.0004}, {-0.3, 0.25}, {0.4, 1.2}, {0.0, 1e-6}};
  for (bool call : {true, false}) {
    for (std::uint8_t digital : {0, 1, 2}) {
      for (float strike : {60.0F, 100.0F, 135.0F}) {
        auto const t = european(call, digital, strike);
        for (auto const& p : points) {
          double const mc = conditional_european_payoff(t, static_cast<float>(p.x), static_cast<float>(p.w));
          double const ref = quadrature(t, p.x, p.w);
          INFO("call " << call << " digital " << int(digital) << " K " << strike << " x " << p.x << " w " << p.w << ": "
                       << mc << " against " << ref);
          CHECK(std::abs(mc - ref) <= 2e-5 * std::abs(ref) + 2e-5 * (digital == 1 ? t.rebate : t.spot));
        }
        // No variance left: the payoff at the forward.
        double const at = conditional_european_payoff(t, 0.1F, 0.0F);
        CHECK(std::abs(at - payoff_at(t, 100.0 * std::exp(0.1F))) <= 1e-5 * t.spot);
      }
    }
  }
}

TEST_CASE("conditional Heston Europeans keep the full QE scheme's expectation with a smaller variance")
{
  // The peers' case (Feller violated: both QE branches) and a positive-correlation case.
  heston_case const cases[] = {{100, 100, 1, 0.0, 0.0, 0.0175, 1.5768, 0.0398, 0.5751, -0.5711},
                               {100, 90, 0.5, 0.03, 0.01, 0.09, 2.0, 0.06, 0.9, 0.3}};
  for (auto const& c : cases) {
    int const steps = 50;
    double const dt = c.t / steps;
    std::vector<heston_step> grid;
    for (int k = 0; k < steps; ++k) {
      grid.push_back(make_heston_step(dt, (c.r - c.q) * dt, 1.0, false, c.kappa, c.theta, c.xi, c.rho));
    }
    heston_trade h{};
    h.key = 20261201;
    h.steps = steps;
    h.spot = static_cast<float>(c.s);
    h.strike = static_cast<float>(c.k);
    h.product = path_product::european;
    h.call = 1;
    h.v0 = static_cast<float>(c.v0);
    h.kappa = static_cast<float>(c.kappa);
    h.theta = static_cast<float>(c.theta);
    h.xi = static_cast<float>(c.xi);
    h.rho = static_cast<float>(c.rho);
    // The negative correlation's steps are regular (A < 0), the positive one's not; the regular
    // form's bits are the general form's.
    h.qe_regular = heston_qe_regular(h.xi, grid.data(), steps) ? 1 : 0;
    CHECK(h.qe_regular == (c.rho < 0 ? 1 : 0));
    if (h.qe_regular) {
      for (std::uint64_t i = 0; i < 2000; ++i) {
        float const fast = heston_european_paths<rng::host_normal_stream, true, true>(h, grid.data(), i);
        float const general = heston_european_paths<rng::host_normal_stream, true, false>(h, grid.data(), i);
        REQUIRE(std::memcmp(&fast, &general, sizeof fast) == 0);
      }
    }
    int const n = 100'000;
    double sum[2] = {0, 0};
    double sum_sq[2] = {0, 0};
    for (int i = 0; i < n; ++i) {
      double const v[2] = {heston_european_sample<rng::host_normal_stream, false>(h, grid.data(), i),
                           heston_sample<rng::host_normal_stream, path_product::european, false>(h, grid.data(), i)};
      for (int j = 0; j < 2; ++j) {
        sum[j] += v[j];
        sum_sq[j] += v[j] * v[j];
      }
    }
    double mean[2];
    double se[2];
    for (int j = 0; j < 2; ++j) {
      mean[j] = sum[j] / n;
      se[j] = std::sqrt((sum_sq[j] / n - mean[j] * mean[j]) / n);
    }
    double const reference = heston_call(c) * std::exp(c.r * c.t);  // in units paid at T
    INFO("K " << c.k << ": conditional " << mean[0] << " +- " << se[0] << ", full paths " << mean[1] << " +- " << se[1]
              << ", semi-analytic " << reference << "; variance ratio " << (se[1] * se[1]) / (se[0] * se[0]));
    CHECK(std::abs(mean[0] - mean[1]) <= 4.0 * std::sqrt(se[0] * se[0] + se[1] * se[1]));
    CHECK(std::abs(mean[0] - reference) <= 4.0 * se[0] + 0.02);  // QE's bias at 50 steps
    CHECK(se[0] < 0.8 * se[1]);
  }
}
