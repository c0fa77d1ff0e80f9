#pragma once
// Scratch budgets from recorded allocation profiles (docs/memory.md, "Budgets from a recorded
// profile"): `price-batch --memory-profile FILE` records one; `--suggest-budget FILE...` reads
// several and suggests the bucketed pool's size classes, a per-job cap and a pool limit, each
// with its reason; `--memory-settings FILE` applies a suggestion (or a hand-written file).
#include "mcprice/memory/allocation_profile.hpp"
#include "mcprice/settings.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

namespace mcprice::cli {

nlohmann::json profile_to_json(const allocation_profile& p, int device);
// Throws configuration_error naming the file and the field when it is not a profile.
allocation_profile profile_from_json(const nlohmann::json& j, const std::string& file);
allocation_profile read_profile(const std::string& path);

// How the suggestion is drawn; each value is stated in its reason.
struct budget_rules {
  double job_percentile{0.99};   // of the jobs' peaks
  double job_headroom{1.25};     // on that percentile
  double limit_headroom{1.25};   // on the most requested live at once
  // The smallest class takes every smaller request while that adds at most this share of the
  // bytes asked: one class for many small sizes reuses its blocks best.
  double small_rounding{0.01};
  // Then the fewest classes per doubling whose rounding adds at most this share.
  double most_rounding{0.08};
};

struct memory_budget {
  std::size_t class_min_bytes{0};
  std::size_t class_max_bytes{0};
  int classes_per_doubling{0};
  std::size_t job_cap_bytes{0};
  std::size_t pool_limit_bytes{0};
  std::vector<std::string> reasons;  // one line each for the classes, the cap and the limit
};

// Throws configuration_error when the profiles hold no allocation.
memory_budget suggest_budget(const std::vector<allocation_profile>& profiles, const budget_rules& rules = {});
// The share of the bytes asked that rounding to these classes adds (requests beyond the largest
// class are not rounded).
double rounding_waste(const std::vector<allocation_profile>& profiles, std::size_t min_bytes, std::size_t max_bytes,
                      int per_doubling);

void print_budget(std::ostream& out, const memory_budget& b, std::size_t profiles);
nlohmann::json settings_to_json(const memory_budget& b);
// --memory-settings: the file's classes, cap and limit into `o` (a cap or limit given on the
// command line wins: `keep_cap`, `keep_limit`).
void apply_memory_settings(const std::string& path, engine_options& o, bool keep_cap, bool keep_limit);

}  // namespace mcprice::cli
