// A European lane's Greek sums, kept in float about a shift (in the kernels, the channels of the
// trade's median path), against the same sums formed in double sample by sample; a sample's
// channels, formed less their shifts and, with antithetic sampling, from the pair's sum and
// difference, against each path's channels averaged.
#include "catch.hpp"
#include "mcprice/kernels/greeks/european_greeks.hpp"

#include <cmath>
#include <random>
#include <vector>

namespace {

struct channels {
  std::vector<float> p;
  std::vector<float> d;
  std::vector<float> g;
};

// n samples around means (mean, mean / 2, -mean / 4), with a spread `sd` (the same normal draws
// move p, d and g together, so their cross products are far from zero). A shift is where the
// sums are taken about: shift_at(mean, sd, k) is the channels' values where both normals are k.
struct shift {
  float p;
  float d;
  float g;
};

shift shift_at(float mean, float sd, float k)
{
  return {mean + sd * k, 0.5F * mean + sd * 1.4F * k, -0.25F * mean + sd * k};
}

channels draw(int n, float mean, float sd, unsigned seed)
{
  std::mt19937 gen(seed);
  std::normal_distribution<float> z;
  channels c;
  for (int i = 0; i < n; ++i) {
    float const a = z(gen);
    float const b = z(gen);
    c.p.push_back(mean + sd * a);
    c.d.push_back(0.5F * mean + sd * (0.6F * a + 0.8F * b));
    c.g.push_back(-0.25F * mean + sd * b);
  }
  return c;
}

// The lane's sums through lane_greek_sums, in groups of 4, the last of `n % 4` samples if any,
// with the delta and gamma channels handed over as `scale` times their values.
mcprice::greek_moments lane_sums(const channels& c, shift at, double& sum_p, float scale = 1.0F)
{
  mcprice::lane_greek_sums sums;
  sums.cp = at.p;
  sums.cd = scale * at.d;
  sums.cg = scale * at.g;
  sum_p = 0.0;
  int const n = static_cast<int>(c.p.size());
  for (int first = 0; first < n; first += 4) {
    int const count = n - first < 4 ? n - first : 4;
    float p[4] = {};
    float d[4] = {};
    float g[4] = {};
    for (int j = 0; j < count; ++j) {
      p[j] = c.p[first + j];
      d[j] = scale * c.d[first + j] - sums.cd;
      g[j] = scale * c.g[first + j] - sums.cg;
      sum_p += p[j];
    }
    // Values past the count must not count.
    for (int j = count; j < 4; ++j) p[j] = d[j] = g[j] = 1e30F;
    sums.add<4>(p, d, g, count);
  }
  return sums.in_double(sum_p, scale);
}

// The spread of x about its mean and its covariance with y, from raw sums over n samples.
double covariance(double xy, double x, double y, double n) { return xy / n - (x / n) * (y / n); }

void check_against_double(const channels& c, shift at, double rel)
{
  double sum_p = 0.0;
  auto const m = lane_sums(c, at, sum_p);
  double sd = 0.0;
  double sg = 0.0;
  double dd = 0.0;
  double gg = 0.0;
  double pd = 0.0;
  double pg = 0.0;
  double dg = 0.0;
  for (std::size_t i = 0; i < c.p.size(); ++i) {
    double const p = c.p[i];
    double const d = c.d[i];
    double const g = c.g[i];
    sd += d;
    sg += g;
    dd += d * d;
    gg += g * g;
    pd += p * d;
    pg += p * g;
    dg += d * g;
  }
  double const n = static_cast<double>(c.p.size());
  CHECK(m.sum_d == Approx(sd).epsilon(1e-6));
  CHECK(m.sum_g == Approx(sg).epsilon(1e-6));
  // What the statistics take from the sums: variances and covariances, which must hold to `rel`
  // of the spread even where the means are far larger than the spread.
  double const var_d = covariance(dd, sd, sd, n);
  double const var_g = covariance(gg, sg, sg, n);
  CHECK(covariance(m.dd, m.sum_d, m.sum_d, n) == Approx(var_d).epsilon(rel));
  CHECK(covariance(m.gg, m.sum_g, m.sum_g, n) == Approx(var_g).epsilon(rel));
  double const scale = std::sqrt(var_d * var_g);
  CHECK(std::abs(covariance(m.dg, m.sum_d, m.sum_g, n) - covariance(dg, sd, sg, n)) <= rel * scale);
  CHECK(std::abs(covariance(m.pd, sum_p, m.sum_d, n) - covariance(pd, sum_p, sd, n)) <= rel * scale);
  CHECK(std::abs(covariance(m.pg, sum_p, m.sum_g, n) - covariance(pg, sum_p, sg, n)) <= rel * scale);
}

}  // namespace

TEST_CASE("a lane's Greek sums in float about a shift match double sums")
{
  SECTION("a spread of a fifth of the mean, shifted to the median path")
  {
    check_against_double(draw(32, 100.0F, 20.0F, 1), shift_at(100.0F, 20.0F, 0.0F), 1e-5);
  }
  SECTION("a wide spread, the shift three spreads out")
  {
    check_against_double(draw(32, 100.0F, 20.0F, 5), shift_at(100.0F, 20.0F, 3.0F), 1e-4);
  }
  SECTION("a spread of a ten-thousandth of the mean: raw float squares would lose it")
  {
    check_against_double(draw(32, 100.0F, 0.01F, 2), shift_at(100.0F, 0.01F, 0.0F), 1e-4);
    check_against_double(draw(32, 100.0F, 0.01F, 6), shift_at(100.0F, 0.01F, -2.0F), 1e-4);
  }
  SECTION("a partial last group") { check_against_double(draw(30, 1.0F, 0.5F, 3), shift_at(1.0F, 0.5F, 1.0F), 1e-5); }
  SECTION("a lane of one sample") { check_against_double(draw(1, 3.0F, 0.0F, 4), shift_at(3.0F, 0.0F, 0.0F), 1e-5); }
}

TEST_CASE("channels summed at twice their values give the same sums, bit for bit")
{
  auto const c = draw(30, 7.0F, 2.0F, 8);
  shift const at = shift_at(7.0F, 2.0F, 0.5F);
  double sum_p = 0.0;
  auto const once = lane_sums(c, at, sum_p, 1.0F);
  auto const twice = lane_sums(c, at, sum_p, 2.0F);
  CHECK(twice.sum_d == once.sum_d);
  CHECK(twice.sum_g == once.sum_g);
  CHECK(twice.dd == once.dd);
  CHECK(twice.gg == once.gg);
  CHECK(twice.pd == once.pd);
  CHECK(twice.pg == once.pg);
  CHECK(twice.dg == once.dg);
}

namespace {

using mcprice::terminal_payoff;

// A digital's payoff at s, its kind read at run time.
double digital_payoff(const mcprice::terminal_payoff_params& params, float s)
{
  switch (params.kind) {
    case terminal_payoff::cash_digital_call:
      return mcprice::evaluate<terminal_payoff::cash_digital_call>(params, s);
    case terminal_payoff::cash_digital_put:
      return mcprice::evaluate<terminal_payoff::cash_digital_put>(params, s);
    case terminal_payoff::asset_digital_call:
      return mcprice::evaluate<terminal_payoff::asset_digital_call>(params, s);
    default:
      return mcprice::evaluate<terminal_payoff::asset_digital_put>(params, s);
  }
}

// One path's delta and gamma channels as the header's comment defines them, in double:
// pathwise for calls and puts, likelihood ratio for digitals.
void path_channels(const mcprice::terminal_payoff_params& params, double a, double z, float s, double& d, double& g)
{
  double const k = params.strike;
  if (params.kind == terminal_payoff::call || params.kind == terminal_payoff::put) {
    d = params.kind == terminal_payoff::call ? (s > k ? s : 0.0) : (k > s ? -double{s} : 0.0);
    g = d * (z - a);
    return;
  }
  double const p = digital_payoff(params, s);
  d = p * z;
  g = p * (z * z - 1.0 - a * z);
}

template <terminal_payoff Kind, bool Antithetic>
void check_channels(float z)
{
  mcprice::terminal_payoff_params const params{Kind, 100.0F, 10.0F};
  float const a = 0.3F;
  float const obs[2] = {100.0F * std::exp(a * z), 100.0F * std::exp(-a * z)};
  float const cd = 3.0F;
  float const cg = -2.0F;
  float ed = 0.0F;
  float eg = 0.0F;
  mcprice::shifted_channels<Kind, Antithetic>(params, a, z, obs, cd, cg, ed, eg);
  double d = 0.0;
  double g = 0.0;
  path_channels(params, a, z, obs[0], d, g);
  if (Antithetic) {
    double d_down = 0.0;
    double g_down = 0.0;
    path_channels(params, a, -z, obs[1], d_down, g_down);
    d = 0.5 * (d + d_down);
    g = 0.5 * (g + g_down);
  }
  double const scale = mcprice::channel_scale<Antithetic>;
  double const size = 1.0 + std::abs(scale * d) + std::abs(scale * g) + std::abs(cd) + std::abs(cg);
  CHECK(std::abs(ed - (scale * d - cd)) <= 1e-6 * size);
  CHECK(std::abs(eg - (scale * g - cg)) <= 1e-6 * size);
}

template <terminal_payoff Kind>
void check_kind()
{
  for (float const z : {-2.1F, -0.4F, 0.0F, 0.7F, 1.9F}) {
    check_channels<Kind, false>(z);
    check_channels<Kind, true>(z);
  }
}

}  // namespace

TEST_CASE("a sample's shifted channels match each path's channels averaged over the pair")
{
  check_kind<terminal_payoff::call>();
  check_kind<terminal_payoff::put>();
  check_kind<terminal_payoff::cash_digital_call>();
  check_kind<terminal_payoff::cash_digital_put>();
  check_kind<terminal_payoff::asset_digital_call>();
  check_kind<terminal_payoff::asset_digital_put>();
}

TEST_CASE("a lane with no samples adds nothing")
{
  mcprice::lane_greek_sums const sums;
  auto const m = sums.in_double(0.0);
  CHECK(m.sum_d == 0.0);
  CHECK(m.sum_g == 0.0);
  CHECK(m.dd == 0.0);
  CHECK(m.gg == 0.0);
  CHECK(m.pd == 0.0);
  CHECK(m.pg == 0.0);
  CHECK(m.dg == 0.0);
}
