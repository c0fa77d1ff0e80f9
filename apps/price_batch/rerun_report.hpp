#pragma once
// What `price-batch --rerun` found: changed inputs, changed settings and environment (split
// into what may change the numbers and what never does), and every trade whose bits moved.
#include "run_manifest.hpp"

#include <ostream>
#include <string>
#include <vector>

namespace mcprice::cli {

struct rerun_report {
  std::vector<std::string> inputs_changed;
  std::vector<std::string> may_change_results;    // settings or environment that may move bits
  std::vector<std::string> never_change_results;  // settings that never move bits
  std::vector<std::string> trades_differing;      // "id: what moved"
  std::size_t trades_compared{0};
  [[nodiscard]] bool identical() const { return trades_differing.empty(); }
};

// Settings and environment of `now` against `recorded`, split by whether they may move bits.
struct setting_changes {
  std::vector<std::string> may_change_results;
  std::vector<std::string> never_change_results;
};
setting_changes changed_settings(const run_manifest& recorded, const run_manifest& now);

// Inputs: the digests the manifest recorded against the files as they are now.
std::vector<std::string> changed_inputs(const run_manifest& recorded);

// Settings, environment and results of `now` against `recorded`.
rerun_report compare_runs(const run_manifest& recorded, const run_manifest& now);

void print_rerun_report(std::ostream& out, const rerun_report& r, const std::string& manifest_path);

}  // namespace mcprice::cli
