#pragma once
// The benchmarks' synthetic books: the MonteCarloMultiGPU sample's European calls (one asset per
// option, S in [5,50], K in [10,25], T in [1,5], r = 0.06, sigma = 0.10), seeded, as engine
// inputs.
#include "mcprice/market.hpp"
#include "mcprice/portfolio.hpp"

#include <algorithm>
#include <chrono>
#include <random>
#include <string>
#include <vector>

namespace mcprice::bench {

struct option_spec {
  double s, k, t;
};

inline constexpr double rate = 0.06;
inline constexpr double vol = 0.10;

inline std::vector<option_spec> sample_options(int n)
{
  std::mt19937 gen(123);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<option_spec> v(static_cast<std::size_t>(n));
  for (auto& o : v) {
    o.s = 5.0 + 45.0 * u(gen);
    o.k = 10.0 + 15.0 * u(gen);
    o.t = 1.0 + 4.0 * u(gen);
  }
  return v;
}

// A bumped market for bump-and-reprice comparisons: spots scaled, vol and rate shifted.
struct market_bump {
  double spot_scale{1.0};
  double vol_shift{0.0};
  double rate_shift{0.0};
};

inline market_data market_for(const std::vector<option_spec>& opts, const market_bump& bump = {})
{
  std::vector<asset> assets;
  for (std::size_t i = 0; i < opts.size(); ++i) {
    asset a;
    a.name = "S" + std::to_string(i);
    a.spot = opts[i].s * bump.spot_scale;
    a.vol = vol_curve::flat(vol + bump.vol_shift);
    assets.push_back(a);
  }
  return market_data(rate_curve::flat(rate + bump.rate_shift), std::move(assets), {}, "bench");
}

// Trades first..first+count of the options, `paths` each.
inline portfolio book_for(const std::vector<option_spec>& opts, std::size_t first, std::size_t count,
                          std::int64_t paths)
{
  portfolio book;
  for (std::size_t i = first; i < first + count; ++i) {
    trade t;
    t.id = "opt" + std::to_string(i);
    t.underlyings = {"S" + std::to_string(i)};
    t.strike = opts[i].k;
    t.maturity = opts[i].t;
    t.paths = paths;
    book.trades.push_back(std::move(t));
  }
  return book;
}

inline double median(std::vector<double> v)
{
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Median wall time in seconds of `reps` calls of f after one warm-up call.
template <typename F>
double timed(int reps, F&& f)
{
  f();
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    auto const t0 = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return median(t);
}

// The median over `reps` rounds of (time of b) / (time of a), a and b called back to back in
// each round after one warm-up call of each: the machine's drift between two separate series of
// calls (10-15% on the GPU between runs) does not move it.
template <typename A, typename B>
double paired_ratio(int reps, A&& a, B&& b)
{
  a();
  b();
  std::vector<double> ratios;
  for (int r = 0; r < reps; ++r) {
    auto const t0 = std::chrono::steady_clock::now();
    a();
    auto const t1 = std::chrono::steady_clock::now();
    b();
    auto const t2 = std::chrono::steady_clock::now();
    ratios.push_back(std::chrono::duration<double>(t2 - t1).count() / std::chrono::duration<double>(t1 - t0).count());
  }
  return median(ratios);
}

}  // namespace mcprice::bench
