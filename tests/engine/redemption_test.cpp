// An autocallable's redemption statistics on the CPU backend: the probability of redemption at
// each observation against GBM's cash digitals, the knock-in probability against the closed
// forms of a GBM's minimum (continuous) and of its terminal value (at maturity), probabilities
// that sum to one on every model, the same bits on any thread count and with Greeks, and their
// JSON fields.
#include "catch.hpp"
#include "mcprice/black_scholes.hpp"
#include "mcprice/engine.hpp"
#include "mcprice/market_reader.hpp"
#include "mcprice/results_writer.hpp"
#include "result_bits.hpp"
#include "trade_on.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

using namespace mcprice;
using namespace mcprice::testing;

namespace {

// A: flat GBM, whose minimum has a closed form; B: a second GBM for worst-ofs; H: Heston; L: local
// vol on a flat surface.
market_data redemption_market()
{
  return parse_market(R"({
    "rate": 0.03,
    "assets": {
      "A": {"spot": 100, "dividend_yield": 0.01, "vol": 0.25},
      "B": {"spot": 50, "dividend_yield": 0.02, "vol": 0.3},
      "H": {"spot": 100, "model": "heston",
            "heston": {"v0": 0.04, "kappa": 1.5, "theta": 0.05, "xi": 0.5, "rho": -0.7}},
      "L": {"spot": 100, "dividend_yield": 0.01, "model": "local_vol",
            "vol_surface": {"expiries": [0.5, 1, 2, 4], "strikes": [40, 70, 100, 130, 200],
                            "vols": [[0.25, 0.25, 0.25, 0.25, 0.25], [0.25, 0.25, 0.25, 0.25, 0.25],
                                     [0.25, 0.25, 0.25, 0.25, 0.25], [0.25, 0.25, 0.25, 0.25, 0.25]]}}
    },
    "correlation": {"A,B": 0.4}})",
                      "redemption");
}

constexpr double r = 0.03, q = 0.01, sigma = 0.25, maturity = 2.0;
std::vector<double> const quarterly = {0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0};

trade note_on(const std::string& asset, const std::string& id)
{
  trade t = trade_on(asset, id, product_kind::autocallable, option_type::call, 1.0, maturity);
  t.strike.reset();
  t.observation_times = quarterly;
  t.autocall_barrier = {1.05, 1.0, 0.95, 0.9, 0.9, 0.85, 0.85, 0.8};
  t.coupon = 0.02;
  t.memory = true;
  t.ki_barrier = 0.65;
  t.ki_monitoring = knock_in_monitoring::continuous;
  return t;
}

engine_options cpu_options(std::int64_t paths, std::int64_t steps)
{
  engine_options o;
  o.backend = backend_choice::cpu;
  o.paths = paths;
  o.steps = steps;
  return o;
}

pricing_run price(const std::vector<trade>& trades, const engine_options& o)
{
  portfolio book;
  book.trades = trades;
  return engine(redemption_market(), o).price(book);
}

// P(S_t >= level) for A.
double above(double level, double t)
{
  black_scholes::inputs const in{100.0 * std::exp((r - q) * t), level, sigma * sigma * t, 1.0};
  return black_scholes::cash_digital_call(in, 1.0);
}

// A probability estimated from n paths: 4 binomial standard errors (conditional estimates have
// less variance) and an allowance for float paths.
void check_probability(double estimate, double expected, std::int64_t n)
{
  double const se = std::sqrt(std::max(expected * (1.0 - expected), 1e-12) / static_cast<double>(n));
  INFO("estimate " << estimate << " vs " << expected << " (se " << se << ")");
  CHECK(std::abs(estimate - expected) <= 4.0 * se + 2e-4);
}

const redemption_statistics& statistics_of(const trade_result& x)
{
  INFO(x.id << ": " << x.message);
  REQUIRE(x.status == trade_status::ok);
  REQUIRE(x.redemption);
  return *x.redemption;
}

}  // namespace

TEST_CASE("an autocallable redeems at an observation with its digital's probability", "[structured][redemption]")
{
  // Callable at t = 1 only (the other barriers out of reach): redeemed then with P(S_1 >= 100),
  // else at maturity.
  trade t = note_on("A", "one-call");
  t.autocall_barrier = {100, 100, 100, 1.0, 100, 100, 100, 100};
  t.ki_barrier.reset();
  std::int64_t const n = 100000;
  auto const run = price({t}, cpu_options(n, 8));
  auto const& s = statistics_of(run.results[0]);
  REQUIRE(s.probabilities.size() == quarterly.size());
  CHECK(s.times == quarterly);
  for (std::size_t j : {0, 1, 2, 4, 5, 6}) CHECK(s.probabilities[j] == 0.0);
  double const p = above(100.0, 1.0);
  check_probability(s.probabilities[3], p, n);
  check_probability(s.probabilities[7], 1.0 - p, n);
  CHECK(std::abs(s.probabilities[3] + s.probabilities[7] - 1.0) <= 1e-12);
  CHECK(std::abs(s.expected_life - (s.probabilities[3] * 1.0 + s.probabilities[7] * 2.0)) <= 1e-12);
  CHECK(s.knock_in_probability == 0.0);
}

TEST_CASE("an autocallable's knock-in probability is its GBM's minimum's or terminal value's",
          "[structured][redemption]")
{
  // Never called: the knock-in is watched for the whole two years.
  trade continuous = note_on("A", "continuous");
  continuous.autocall_barrier = {100.0};
  trade at_maturity = continuous;
  at_maturity.id = "at-maturity";
  at_maturity.ki_monitoring = knock_in_monitoring::maturity;
  std::int64_t const n = 100000;
  auto const run = price({continuous, at_maturity}, cpu_options(n, 24));
  // X_t = ln(S_t / S_0) = mu t + sigma W_t; P(min X <= b) over [0, T].
  double const mu = r - q - 0.5 * sigma * sigma;
  double const b = std::log(0.65);
  double const sd = sigma * std::sqrt(maturity);
  auto const cdf = [](double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); };
  double const touched =
      cdf((b - mu * maturity) / sd) + std::exp(2.0 * mu * b / (sigma * sigma)) * cdf((b + mu * maturity) / sd);
  // The Brownian bridge is exact between GBM's exact steps: no allowance for the 24 steps.
  check_probability(statistics_of(run.results[0]).knock_in_probability, touched, n);
  check_probability(statistics_of(run.results[1]).knock_in_probability, 1.0 - above(65.0, maturity), n);
  CHECK(statistics_of(run.results[0]).probabilities.back() == 1.0);
  CHECK(statistics_of(run.results[0]).expected_life == maturity);
}

TEST_CASE("redemption probabilities sum to one on every model and keep their bits", "[structured][redemption]")
{
  trade worst = note_on("A", "worst-of");
  worst.underlyings = {"A", "B"};
  std::vector<trade> const book = {note_on("A", "gbm"), note_on("H", "heston"), note_on("L", "local-vol"), worst};
  engine_options o = cpu_options(8000, 48);
  o.threads = 1;
  auto const one = price(book, o);
  for (auto const& x : one.results) {
    auto const& s = statistics_of(x);
    INFO(x.id);
    REQUIRE(s.probabilities.size() == quarterly.size());
    CHECK(std::abs(std::accumulate(s.probabilities.begin(), s.probabilities.end(), 0.0) - 1.0) <= 1e-12);
    for (double p : s.probabilities) CHECK(p >= 0.0);
    // A step-down note is often called early, and sometimes knocked in.
    CHECK(s.probabilities.front() > 0.1);
    CHECK(s.expected_life > 0.25);
    CHECK(s.expected_life < maturity);
    CHECK(s.knock_in_probability > 0.0);
    CHECK(s.knock_in_probability < 0.5);
  }
  o.threads = 3;
  CHECK(same_result_bits(one, price(book, o)));
  // The Greek lanes price on the price's paths: the same outcomes.
  o.greeks = true;
  auto const with_greeks = price(book, o);
  for (std::size_t i = 0; i < book.size(); ++i) {
    INFO(book[i].id);
    CHECK(same_redemption_bits(one.results[i], with_greeks.results[i]));
  }
  // Sobol replicates: each replicate's probabilities sum to one, and so does their mean.
  o.greeks = false;
  o.rng = rng_kind::sobol;
  o.rqmc_replicates = 8;
  o.paths = 1 << 14;
  for (auto const& x : price(book, o).results) {
    auto const& p = statistics_of(x).probabilities;
    CHECK(std::abs(std::accumulate(p.begin(), p.end(), 0.0) - 1.0) <= 1e-12);
  }
}

TEST_CASE("JSON results carry an autocallable's redemption statistics", "[structured][redemption]")
{
  trade vanilla = trade_on("A", "vanilla", product_kind::vanilla, option_type::call, 100.0, 1.0);
  auto const run = price({note_on("A", "note"), vanilla}, cpu_options(4000, 8));
  std::ostringstream out;
  write_results_json(out, run);
  auto const doc = nlohmann::json::parse(out.str());
  auto const& note = doc["results"][0];
  auto const& s = statistics_of(run.results[0]);
  CHECK(note["redemption_times"].get<std::vector<double>>() == quarterly);
  CHECK(note["redemption_probabilities"].get<std::vector<double>>() == s.probabilities);
  CHECK(note["expected_life"].get<double>() == s.expected_life);
  CHECK(note["knock_in_probability"].get<double>() == s.knock_in_probability);
  CHECK_FALSE(doc["results"][1].contains("redemption_probabilities"));
  CHECK_FALSE(run.results[1].redemption);
}
