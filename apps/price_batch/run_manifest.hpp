#pragma once
// Run manifests (`price-batch --manifest FILE`): what a run read (digests of its inputs), how it
// ran (every effective setting, the engine, the device, driver and runtime, the host) and what
// it wrote (the results' digest and every trade's price and standard error, bit for bit), so
// `--rerun FILE` can repeat it and say exactly what differs.
#include "mcprice/results.hpp"
#include "mcprice/results_writer.hpp"
#include "mcprice/settings.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace mcprice::cli {

struct manifest_file {
  std::string path;    // absolute (inputs), or as given (results; empty: standard output)
  std::string sha256;  // of the bytes read or written
};

// One trade's outcome, bit for bit (a failed trade has no numbers).
struct manifest_trade {
  std::string id;
  bool ok{false};
  std::uint64_t price_bits{0};
  std::uint64_t std_error_bits{0};
  // With --greeks: trade_greeks::all(), each value then std error; empty without.
  std::vector<std::uint64_t> greek_bits;
};

// Where the run's time went (run_summary's split; docs/reruns.md, "Validating an upgrade"):
// recorded since 2026-12-04, absent from older manifests.
struct run_timing {
  bool recorded{false};
  double wall_seconds{0.0};
  double prepare_seconds{0.0};
  double price_seconds{0.0};
  double results_seconds{0.0};
};

struct run_manifest {
  int version{1};
  std::string engine_version;
  std::string engine_commit;
  manifest_file portfolio;
  manifest_file market;
  manifest_file results;       // path empty: written to standard output
  std::string results_format;  // csv | json
  engine_options settings;
  std::string backend;  // the backend that ran: cpu | gpu
  // Where it ran.
  std::string device;  // GPU name, or the CPU backend's description
  std::string compute_capability;
  int driver_version{0};
  int runtime_version{0};
  std::string host;
  // Under mpirun: each rank's host, by rank (rank 0's is `host`); empty for one process. The
  // results do not depend on the rank count; it is recorded to say where the run ran.
  std::vector<std::string> rank_hosts;
  std::vector<manifest_trade> trades;
  run_timing timing;
};

// The manifest of a finished run; results_text is what was written.
run_manifest make_manifest(const std::string& portfolio_path, const std::string& market_path,
                           const std::string& out_path, output_format format, const engine_options& settings,
                           const pricing_run& run, const std::string& results_text);

nlohmann::json to_json(const run_manifest& m);
// Throws configuration_error naming the file and the field when the manifest is malformed.
run_manifest manifest_from_json(const nlohmann::json& j, const std::string& file);
run_manifest read_manifest(const std::string& path);

std::uint64_t bits_of(double x);
double double_of(std::uint64_t bits);

}  // namespace mcprice::cli
