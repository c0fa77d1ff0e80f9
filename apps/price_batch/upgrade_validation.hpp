#pragma once
// What `price-batch --validate-against run.json` found: this build and machine (the candidate)
// against a certified baseline's manifest, for an upgrade of the driver, the CUDA toolkit, the
// GPU or the engine, which changes bits by design. Every trade's price and Greek must agree
// within k combined standard errors, and the run may not take longer than the baseline's by more
// than the slack; its phases say where any time went (docs/reruns.md, "Validating an upgrade").
#include "rerun_report.hpp"
#include "run_manifest.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

namespace mcprice::cli {

struct validation_options {
  double tolerance{4.0};       // --tolerance k: |delta| <= k sqrt(se_baseline^2 + se_candidate^2)
  double latency_slack{0.10};  // --latency-slack: a phase may take (1 + slack) x the baseline's
  // Timings jitter by more than any slack at a few milliseconds: a phase regresses only when it is
  // also this much slower.
  double latency_floor_seconds{0.005};
};

// One number of one trade, in both runs.
struct deviation {
  std::string trade;
  std::string quantity;  // price, delta, ..., deltas[1], cross_gammas[0], ...
  double baseline{0.0};
  double baseline_se{0.0};
  double candidate{0.0};
  double candidate_se{0.0};
  double z{0.0};  // |candidate - baseline| / sqrt(se^2 + se^2); infinite when both errors are 0 and they differ
};

struct phase_timing {
  std::string phase;  // wall, prepare, price, results (run_summary's split)
  double baseline_seconds{0.0};
  double candidate_seconds{0.0};
  // Beyond the slack and the floor. The wall time's decides the verdict (latency_holds); a
  // phase's only says where the time went.
  bool regressed{false};
};

struct validation_report {
  std::vector<std::string> inputs_changed;
  setting_changes settings;             // what changed besides the build and the machine
  std::vector<std::string> mismatches;  // trades missing, added, reordered, or failing in one run only
  std::size_t trades_compared{0};
  std::size_t numbers_compared{0};
  std::vector<deviation> outside;  // beyond the tolerance, largest first
  std::vector<deviation> largest;  // the largest deviations in standard errors, whatever the tolerance
  // How many of numbers_compared a correct candidate puts beyond k by chance: n P(|Z| > k).
  double expected_outside_by_chance{0.0};
  bool timing_recorded{false};  // false: the baseline's manifest predates timings
  std::vector<phase_timing> timing;

  [[nodiscard]] bool numbers_agree() const { return outside.empty() && mismatches.empty(); }
  [[nodiscard]] bool latency_holds() const;
};

validation_report validate_run(const run_manifest& baseline, const run_manifest& candidate,
                               const validation_options& options);

void print_validation_report(std::ostream& out, const validation_report& r, const std::string& baseline_path,
                             const validation_options& options);
nlohmann::json to_json(const validation_report& r, const std::string& baseline_path,
                       const validation_options& options);

// "delta", ..., or for a multi-asset trade "deltas[i]" and the rest: the name of the k-th of
// trade_greeks::all() when a trade has `count` of them.
std::string greek_name(std::size_t k, std::size_t count);

}  // namespace mcprice::cli
