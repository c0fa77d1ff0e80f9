#pragma once
// price-batch's command line (the contract's), parsed with Boost.Program_options into plain
// settings. Kept apart from main() so it is unit-tested without running a pricing.
#include "load_stream.hpp"
#include "mcprice/results_writer.hpp"
#include "mcprice/settings.hpp"

#include <optional>
#include <string>
#include <vector>

namespace mcprice::cli {

struct command_line {
  std::string portfolio;
  std::string market;
  std::string out;  // empty = standard output
  output_format format{output_format::csv};
  engine_options engine;
  std::string manifest;  // --manifest: write a run manifest here
  std::string rerun;     // --rerun: repeat the run a manifest describes
  bool allow_input_change{false};
  // --validate-against: reprice a certified baseline's inputs and compare within standard errors
  // (docs/reruns.md, "Validating an upgrade").
  std::string validate_against;
  double tolerance{4.0};        // --tolerance: k standard errors
  double latency_slack{0.10};   // --latency-slack: 10% or 0.1
  std::string validate_json;    // --validate-json: the report as JSON, for a CI pipeline
  std::vector<std::string> given;  // options given explicitly (a rerun's overrides)
  // Budgets from recorded profiles (docs/memory.md, "Budgets from a recorded profile").
  std::string memory_profile;               // --memory-profile: record this run's scratch allocations here
  std::vector<std::string> suggest_budget;  // --suggest-budget: profiles to read instead of pricing
  std::string memory_settings;              // --memory-settings: size classes, job cap, pool limit
  bool greeks{false};
  bool quiet{false};
  bool memory_report{false};
  bool show_help{false};
  bool show_version{false};
  // --load-test (docs/load_test.md): the stream, its submitters and the allocators to compare.
  bool load_test{false};
  load::stream_options load;
  int load_threads{4};
  bool load_find_max{false};  // --load-find-max: the highest sustainable load, per allocator
  double load_slo_ms{50.0};   // --load-slo: its p99 job-latency objective
  double load_step_seconds{2.0};  // --load-step-seconds: each step's least span of arrivals
  std::vector<allocator_kind> allocators;
  std::string load_json;
  std::string load_html;
  std::string load_from;  // a saved --load-json report to render instead of running
  // --pool-limit 80%,90%,95% with --load-test: after the unlimited runs, one run per allocator
  // and share, the limit that share of the peak bytes that allocator's unlimited run requested.
  std::vector<double> load_pressures;
};

// Throws configuration_error on a bad command line.
command_line parse_command_line(int argc, const char* const argv[]);
std::string help_text();
std::string default_market_path();

}  // namespace mcprice::cli
