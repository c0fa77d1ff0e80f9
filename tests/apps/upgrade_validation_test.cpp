// `price-batch --validate-against`: a candidate run against a certified baseline within standard
// errors and a latency slack. Another seed passes, an injected shift fails on numbers, an
// injected delay fails on latency alone.
#include "catch.hpp"
#include "golden_runs.hpp"
#include "upgrade_validation.hpp"

#include <cmath>
#include <map>
#include <sstream>

using namespace mcprice;
using namespace mcprice::cli;
using namespace mcprice::testing;

namespace {

engine_options with_greeks(std::uint64_t seed)
{
  engine_options o = golden_options();
  o.seed = seed;
  o.greeks = true;
  return o;
}

// Priced once per seed: the cases take copies.
run_manifest golden_manifest(std::uint64_t seed)
{
  static std::map<std::uint64_t, run_manifest> runs;
  auto it = runs.find(seed);
  if (it == runs.end()) {
    engine_options const o = with_greeks(seed);
    it = runs.emplace(seed, manifest_of(price_golden(o), o)).first;
  }
  return it->second;
}

// Every priced trade's price moved by `share` of itself: the "biased build".
run_manifest shifted(run_manifest m, double share)
{
  for (auto& t : m.trades) {
    if (t.ok) t.price_bits = bits_of(double_of(t.price_bits) * (1.0 + share));
  }
  return m;
}

}  // namespace

TEST_CASE("a run with another seed passes at k = 4, prices and Greeks alike")
{
  auto const baseline = golden_manifest(42);
  auto const candidate = golden_manifest(7);
  validation_options const o;
  auto const r = validate_run(baseline, candidate, o);
  CHECK(r.numbers_agree());
  CHECK(r.mismatches.empty());
  CHECK(r.trades_compared == baseline.trades.size());
  std::size_t expected = 0;  // a price and its Greeks per priced trade
  for (auto const& t : baseline.trades) expected += t.ok ? 1 + t.greek_bits.size() / 2 : 0;
  CHECK(r.numbers_compared == expected);
  CHECK(r.numbers_compared > 2 * baseline.trades.size());  // Greeks were compared too
  REQUIRE_FALSE(r.largest.empty());
  CHECK(r.largest.front().z > 0.0);  // another seed moves the numbers...
  CHECK(r.largest.front().z <= 4.0);  // ...within their errors
  CHECK(r.expected_outside_by_chance == Approx(r.numbers_compared * 6.334e-5).epsilon(1e-3));
  REQUIRE(r.settings.may_change_results.size() == 1);
  CHECK(r.settings.may_change_results[0] == "setting seed 42 -> 7");
  CHECK(r.timing_recorded);
  std::ostringstream text;
  print_validation_report(text, r, "base.json", o);
  CHECK(text.str().find("validation against base.json (k = 4, latency slack 10%): ") != std::string::npos);
}

TEST_CASE("a biased candidate fails on its numbers and names the trades beyond the tolerance")
{
  auto const baseline = golden_manifest(42);
  auto const candidate = shifted(golden_manifest(7), 0.01);
  auto const r = validate_run(baseline, candidate, validation_options{});
  CHECK_FALSE(r.numbers_agree());
  REQUIRE_FALSE(r.outside.empty());
  for (std::size_t i = 0; i < r.outside.size(); ++i) {
    CHECK(r.outside[i].quantity == "price");  // only prices were shifted
    CHECK(r.outside[i].z > 4.0);
    if (i > 0) CHECK(r.outside[i].z <= r.outside[i - 1].z);  // largest first
    double const se = std::hypot(r.outside[i].baseline_se, r.outside[i].candidate_se);
    CHECK(std::abs(r.outside[i].candidate - r.outside[i].baseline) / se == Approx(r.outside[i].z));
  }
  // A wider tolerance lets the same shift through where it is small against the errors.
  validation_options wide;
  wide.tolerance = r.outside.front().z + 1.0;
  CHECK(validate_run(baseline, candidate, wide).numbers_agree());
  auto const json = to_json(r, "base.json", validation_options{});
  CHECK(json.at("verdict") == "fail: numbers");
  CHECK(json.at("outside").size() == r.outside.size());
}

TEST_CASE("a slowed candidate fails on latency alone, beyond the slack and the floor")
{
  auto const baseline = golden_manifest(42);
  auto slow = baseline;
  slow.timing.price_seconds = baseline.timing.price_seconds * 1.5 + 0.05;
  slow.timing.wall_seconds = baseline.timing.wall_seconds + 0.05 + baseline.timing.price_seconds * 0.5;
  auto const r = validate_run(baseline, slow, validation_options{});
  CHECK(r.numbers_agree());
  CHECK_FALSE(r.latency_holds());
  std::size_t regressed = 0;
  for (auto const& p : r.timing) regressed += p.regressed ? 1 : 0;
  CHECK(regressed == 2);  // wall and price; prepare and results are unchanged
  CHECK(to_json(r, "b", validation_options{}).at("verdict") == "fail: latency");
  std::ostringstream text;
  print_validation_report(text, r, "b", validation_options{});
  CHECK(text.str().find("regressed") != std::string::npos);  // the wall time
  CHECK(text.str().find("slower") != std::string::npos);     // the price phase

  // A phase slower while the run ends no later (a pipelined book's phases overlap): named, not failed.
  auto overlapped = baseline;
  overlapped.timing.prepare_seconds = baseline.timing.prepare_seconds + 0.05;
  auto const o = validate_run(baseline, overlapped, validation_options{});
  CHECK(o.latency_holds());
  CHECK(o.timing[1].regressed);

  // Slower by more than the slack but less than the floor: timing noise, not a regression.
  auto jitter = baseline;
  jitter.timing.results_seconds = baseline.timing.results_seconds * 1.5 + 0.001;
  CHECK(validate_run(baseline, jitter, validation_options{}).latency_holds());
  // A larger slack admits the slow run.
  validation_options lenient;
  lenient.latency_slack = 10.0;
  lenient.latency_floor_seconds = 1.0;
  CHECK(validate_run(baseline, slow, lenient).latency_holds());
}

TEST_CASE("validation reports trades that fail, vanish or lose their Greeks in one run only")
{
  auto const baseline = golden_manifest(42);
  auto candidate = golden_manifest(7);
  candidate.trades[0].ok = false;
  candidate.trades[1].greek_bits.clear();
  candidate.trades.pop_back();
  auto const r = validate_run(baseline, candidate, validation_options{});
  CHECK_FALSE(r.numbers_agree());
  REQUIRE(r.mismatches.size() == 3);
  CHECK(r.mismatches[0] == "the baseline priced 15 trades, this run 14");
  CHECK(r.mismatches[1] == baseline.trades[0].id + ": priced in the baseline, fails now");
  CHECK(r.mismatches[2] == baseline.trades[1].id + ": 5 Greeks in the baseline, 0 now");
}

TEST_CASE("a baseline without timings is compared on its numbers only")
{
  auto baseline = golden_manifest(42);
  baseline.timing = {};
  auto const back = manifest_from_json(nlohmann::json::parse(to_json(golden_manifest(42)).dump()), "m");
  CHECK(back.timing.recorded);
  auto old = to_json(baseline);
  old.erase("timing");
  auto const read = manifest_from_json(old, "old.json");
  CHECK_FALSE(read.timing.recorded);
  auto const r = validate_run(read, golden_manifest(7), validation_options{});
  CHECK_FALSE(r.timing_recorded);
  CHECK(r.latency_holds());
  std::ostringstream text;
  print_validation_report(text, r, "old.json", validation_options{});
  CHECK(text.str().find("timing: not compared") != std::string::npos);
}

TEST_CASE("Greeks are named in trade_greeks::all() order, one asset or several")
{
  CHECK(greek_name(0, 5) == "delta");
  CHECK(greek_name(4, 5) == "rho");
  // Three assets: theta, rho, 3 deltas, 3 gammas, 3 vegas, 3 cross gammas, correlation vega.
  CHECK(greek_name(0, 15) == "theta");
  CHECK(greek_name(1, 15) == "rho");
  CHECK(greek_name(2, 15) == "deltas[0]");
  CHECK(greek_name(6, 15) == "gammas[1]");
  CHECK(greek_name(10, 15) == "vegas[2]");
  CHECK(greek_name(12, 15) == "cross_gammas[1]");
  CHECK(greek_name(14, 15) == "correlation_vega");
  CHECK(greek_name(3, 7) == "greek[3]");  // no asset count fits
}

TEST_CASE("a Sobol run's manifest records its generator, and a rerun without it would differ")
{
  engine_options o = golden_options();
  o.rng = rng_kind::sobol;
  o.rqmc_replicates = 8;
  auto const m = manifest_of(price_golden(o), o);
  auto const back = manifest_from_json(nlohmann::json::parse(to_json(m).dump()), "m");
  CHECK(back.settings.rng == rng_kind::sobol);
  CHECK(back.settings.rqmc_replicates == 8);
  auto pseudo = m;
  pseudo.settings.rng = rng_kind::pseudo;
  auto const changes = changed_settings(m, pseudo);
  REQUIRE(changes.may_change_results.size() == 1);
  CHECK(changes.may_change_results[0] == "setting rng sobol -> pseudo");
}
