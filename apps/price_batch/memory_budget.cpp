#include "memory_budget.hpp"

#include "mcprice/input_error.hpp"
#include "mcprice/memory/size_classes.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace mcprice::cli {
namespace {

nlohmann::json parse_file(const std::string& path, const char* what)
{
  std::ifstream in(path, std::ios::binary);
  if (!in) throw configuration_error(std::string(what) + " " + path + ": cannot be read");
  std::stringstream text;
  text << in.rdbuf();
  try {
    return nlohmann::json::parse(text.str());
  } catch (const nlohmann::json::exception& e) {
    throw configuration_error(std::string(what) + " " + path + ": not valid JSON (" + e.what() + ")");
  }
}

[[noreturn]] void bad(const std::string& file, const std::string& what)
{
  throw configuration_error("allocation profile " + file + ": " + what);
}

bool is_whole(const nlohmann::json& v)
{
  return v.is_number_unsigned() || (v.is_number_integer() && v.get<std::int64_t>() >= 0);
}

std::size_t whole_bytes(const nlohmann::json& v, const std::string& file, const std::string& where)
{
  if (!is_whole(v)) bad(file, where + " must be a whole number of bytes");
  return v.get<std::size_t>();
}

double seconds(const nlohmann::json& v, const std::string& file, const std::string& where)
{
  if (!v.is_number()) bad(file, where + " must be a number of seconds");
  return v.get<double>();
}

std::size_t power_of_two_at_most(std::size_t n)
{
  std::size_t p = 1;
  while (p * 2 <= n) p *= 2;
  return p;
}

std::size_t power_of_two_at_least(std::size_t n)
{
  std::size_t p = 1;
  while (p < n) p *= 2;
  return p;
}

std::size_t round_up_mib(double bytes)
{
  constexpr double mib = 1 << 20;
  return static_cast<std::size_t>(std::ceil(bytes / mib)) << 20;
}

std::string mib(double bytes)
{
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g MiB", bytes / (1 << 20));
  return buf;
}

std::string kib(std::size_t bytes)
{
  char buf[32];
  if (bytes >= (std::size_t{1} << 20)) return mib(static_cast<double>(bytes));
  std::snprintf(buf, sizeof buf, "%.4g KiB", static_cast<double>(bytes) / 1024);
  return buf;
}

// The value below which `share` of the sorted values lie (nearest rank).
std::size_t percentile(std::vector<std::size_t> v, double share)
{
  std::sort(v.begin(), v.end());
  auto const rank = static_cast<std::size_t>(std::ceil(share * static_cast<double>(v.size())));
  return v[std::min(v.size() - 1, rank == 0 ? 0 : rank - 1)];
}

// The bytes rounding every request below `min_bytes` up to it adds.
double small_rounding(const std::vector<allocation_profile>& profiles, std::size_t min_bytes)
{
  double asked = 0.0;
  double added = 0.0;
  for (auto const& p : profiles) {
    for (auto const& a : p.allocations) {
      asked += static_cast<double>(a.bytes);
      if (a.bytes < min_bytes) added += static_cast<double>(min_bytes - a.bytes);
    }
  }
  return asked > 0.0 ? added / asked : 0.0;
}

// The largest power of two from `from` up to `limit` whose rounding of the smaller requests adds
// at most `share` to the bytes asked.
std::size_t smallest_class(const std::vector<allocation_profile>& profiles, std::size_t from, std::size_t limit,
                           double share)
{
  std::size_t min_bytes = from;
  while (min_bytes * 2 <= limit && small_rounding(profiles, min_bytes * 2) <= share) min_bytes *= 2;
  return min_bytes;
}

}  // namespace

nlohmann::json profile_to_json(const allocation_profile& p, int device)
{
  nlohmann::json allocations = nlohmann::json::array();
  for (auto const& a : p.allocations) {
    allocations.push_back({a.job, a.stream, a.bytes, a.granted, a.allocated_at, a.freed_at});
  }
  nlohmann::json jobs = nlohmann::json::array();
  for (auto const& j : p.jobs) jobs.push_back({j.job, j.peak_bytes});
  return {{"mcprice_allocation_profile", 1},
          {"device", device},
          {"peak_bytes", p.peak_bytes},
          {"allocation_fields", {"job", "stream", "bytes", "granted", "allocated_at", "freed_at"}},
          {"allocations", allocations},
          {"job_fields", {"job", "peak_bytes"}},
          {"jobs", jobs}};
}

allocation_profile profile_from_json(const nlohmann::json& j, const std::string& file)
{
  if (!j.is_object() || !j.contains("mcprice_allocation_profile")) bad(file, "not an mcprice allocation profile");
  if (j.at("mcprice_allocation_profile") != 1) bad(file, "version must be 1");
  allocation_profile p;
  if (!j.contains("peak_bytes")) bad(file, "/peak_bytes is missing");
  p.peak_bytes = whole_bytes(j.at("peak_bytes"), file, "/peak_bytes");
  if (!j.contains("allocations") || !j.at("allocations").is_array()) bad(file, "/allocations must be an array");
  auto const& rows = j.at("allocations");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    std::string const at = "/allocations/" + std::to_string(i);
    auto const& r = rows[i];
    if (!r.is_array() || r.size() != 6 || !r[0].is_string()) {
      bad(file, at + " must be [job, stream, bytes, granted, allocated_at, freed_at]");
    }
    allocation_record a;
    a.job = r[0].get<std::string>();
    a.stream = whole_bytes(r[1], file, at + "/1");
    a.bytes = whole_bytes(r[2], file, at + "/2");
    a.granted = whole_bytes(r[3], file, at + "/3");
    a.allocated_at = seconds(r[4], file, at + "/4");
    a.freed_at = seconds(r[5], file, at + "/5");
    p.allocations.push_back(std::move(a));
  }
  if (!j.contains("jobs") || !j.at("jobs").is_array()) bad(file, "/jobs must be an array");
  auto const& jobs = j.at("jobs");
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    std::string const at = "/jobs/" + std::to_string(i);
    auto const& r = jobs[i];
    if (!r.is_array() || r.size() != 2 || !r[0].is_string()) bad(file, at + " must be [job, peak_bytes]");
    p.jobs.push_back({r[0].get<std::string>(), whole_bytes(r[1], file, at + "/1")});
  }
  return p;
}

allocation_profile read_profile(const std::string& path)
{
  return profile_from_json(parse_file(path, "allocation profile"), path);
}

double rounding_waste(const std::vector<allocation_profile>& profiles, std::size_t min_bytes, std::size_t max_bytes,
                      int per_doubling)
{
  size_class_options o;
  o.min_bytes = min_bytes;
  o.max_bytes = max_bytes;
  o.per_doubling = per_doubling;
  size_classes const classes(o);
  double asked = 0.0;
  double added = 0.0;
  for (auto const& p : profiles) {
    for (auto const& a : p.allocations) {
      int const c = classes.class_of(a.bytes);
      asked += static_cast<double>(a.bytes);
      if (c >= 0) added += static_cast<double>(classes.size_of(c) - a.bytes);
    }
  }
  return asked > 0.0 ? added / asked : 0.0;
}

memory_budget suggest_budget(const std::vector<allocation_profile>& profiles, const budget_rules& rules)
{
  std::size_t smallest = 0;
  std::size_t largest = 0;
  std::size_t count = 0;
  std::size_t peak = 0;
  std::vector<std::size_t> job_peaks;
  for (auto const& p : profiles) {
    for (auto const& a : p.allocations) {
      smallest = count == 0 ? a.bytes : std::min(smallest, a.bytes);
      largest = std::max(largest, a.bytes);
      ++count;
    }
    for (auto const& j : p.jobs) job_peaks.push_back(j.peak_bytes);
    peak = std::max(peak, p.peak_bytes);
  }
  if (count == 0) throw configuration_error("--suggest-budget: the profiles hold no allocation");
  memory_budget b;
  b.class_max_bytes = std::max<std::size_t>(256, power_of_two_at_least(largest));
  b.class_min_bytes = smallest_class(profiles, std::max<std::size_t>(256, power_of_two_at_most(smallest)),
                                     b.class_max_bytes, rules.small_rounding);
  double waste = 0.0;
  for (int pd : {1, 2, 4, 8, 16, 32, 64}) {
    b.classes_per_doubling = pd;
    waste = rounding_waste(profiles, b.class_min_bytes, b.class_max_bytes, pd);
    if (waste <= rules.most_rounding) break;
  }
  double const default_waste = rounding_waste(profiles, size_class_options{}.min_bytes,
                                              size_class_options{}.max_bytes, size_class_options{}.per_doubling);
  char line[512];
  std::snprintf(line, sizeof line,
                "size classes %s to %s, %d per doubling: %zu requests from %s to %s; the smallest class takes "
                "every smaller request while that adds at most %.0f%% to the bytes asked (one class for them all "
                "reuses best), then the fewest classes whose rounding adds at most %.0f%% (%.1f%%; the default "
                "classes: %.1f%%)",
                kib(b.class_min_bytes).c_str(), kib(b.class_max_bytes).c_str(), b.classes_per_doubling, count,
                kib(smallest).c_str(), kib(largest).c_str(), 100.0 * rules.small_rounding,
                100.0 * rules.most_rounding, 100.0 * waste, 100.0 * default_waste);
  b.reasons.emplace_back(line);
  if (!job_peaks.empty()) {
    std::size_t const p = percentile(job_peaks, rules.job_percentile);
    b.job_cap_bytes = round_up_mib(static_cast<double>(p) * rules.job_headroom);
    std::snprintf(line, sizeof line,
                  "job cap %s: the %g%% percentile of %zu jobs' peaks, %s, x %g, rounded up to a MiB (the largest "
                  "peak: %s; larger jobs are cut into more, with the same results)",
                  mib(static_cast<double>(b.job_cap_bytes)).c_str(), 100.0 * rules.job_percentile, job_peaks.size(),
                  mib(static_cast<double>(p)).c_str(), rules.job_headroom,
                  mib(static_cast<double>(*std::max_element(job_peaks.begin(), job_peaks.end()))).c_str());
    b.reasons.emplace_back(line);
  }
  b.pool_limit_bytes = round_up_mib(static_cast<double>(peak) * rules.limit_headroom);
  std::snprintf(line, sizeof line,
                "pool limit %s: the most requested live at once in any profile, %s, x %g, rounded up to a MiB",
                mib(static_cast<double>(b.pool_limit_bytes)).c_str(), mib(static_cast<double>(peak)).c_str(),
                rules.limit_headroom);
  b.reasons.emplace_back(line);
  return b;
}

void print_budget(std::ostream& out, const memory_budget& b, std::size_t profiles)
{
  out << "suggested scratch budget from " << profiles << (profiles == 1 ? " profile" : " profiles") << ":\n";
  for (auto const& r : b.reasons) out << "  " << r << "\n";
}

nlohmann::json settings_to_json(const memory_budget& b)
{
  nlohmann::json j = {{"mcprice_memory_settings", 1},
                      {"size_classes",
                       {{"min_bytes", b.class_min_bytes},
                        {"max_bytes", b.class_max_bytes},
                        {"per_doubling", b.classes_per_doubling}}},
                      {"pool_limit_bytes", b.pool_limit_bytes},
                      {"reasons", b.reasons}};
  if (b.job_cap_bytes != 0) j["job_cap_bytes"] = b.job_cap_bytes;
  return j;
}

void apply_memory_settings(const std::string& path, engine_options& o, bool keep_cap, bool keep_limit)
{
  nlohmann::json const j = parse_file(path, "memory settings");
  auto const fail = [&](const std::string& what) { throw configuration_error("memory settings " + path + ": " + what); };
  if (!j.is_object() || !j.contains("mcprice_memory_settings")) fail("not an mcprice memory settings file");
  auto const bytes = [&](const nlohmann::json& obj, const char* key, const std::string& where) -> std::size_t {
    if (!obj.contains(key)) return 0;
    auto const& v = obj.at(key);
    if (!is_whole(v)) fail(where + key + " must be a whole number");
    return v.get<std::size_t>();
  };
  if (j.contains("size_classes")) {
    auto const& c = j.at("size_classes");
    if (!c.is_object()) fail("/size_classes must be an object");
    o.size_class_min_bytes = bytes(c, "min_bytes", "/size_classes/");
    o.size_class_max_bytes = bytes(c, "max_bytes", "/size_classes/");
    std::size_t const pd = bytes(c, "per_doubling", "/size_classes/");
    if (pd > 64) fail("/size_classes/per_doubling must be in [1, 64]");
    o.size_classes_per_doubling = static_cast<int>(pd);
  }
  if (!keep_cap) o.job_cap_bytes = bytes(j, "job_cap_bytes", "/");
  if (!keep_limit) o.pool_limit_bytes = bytes(j, "pool_limit_bytes", "/");
}

}  // namespace mcprice::cli
