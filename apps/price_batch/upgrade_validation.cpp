#include "upgrade_validation.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <utility>

namespace mcprice::cli {
namespace {

constexpr std::size_t largest_shown = 10;

double z_of(double a, double a_se, double b, double b_se)
{
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<double>::infinity();
  double const se = std::sqrt(a_se * a_se + b_se * b_se);
  double const d = std::abs(b - a);
  if (se > 0.0) return d / se;
  return d == 0.0 ? 0.0 : std::numeric_limits<double>::infinity();
}

deviation deviation_of(const std::string& trade, std::string quantity, std::uint64_t a, std::uint64_t a_se,
                       std::uint64_t b, std::uint64_t b_se)
{
  deviation d{trade, std::move(quantity), double_of(a), double_of(a_se), double_of(b), double_of(b_se), 0.0};
  d.z = z_of(d.baseline, d.baseline_se, d.candidate, d.candidate_se);
  return d;
}

// Appends the trade's numbers to `all`, or says why they cannot be compared.
void compare_trade(const manifest_trade& a, const manifest_trade& b, std::vector<deviation>& all,
                   std::vector<std::string>& mismatches)
{
  if (a.ok != b.ok) {
    mismatches.push_back(a.id + (a.ok ? ": priced in the baseline, fails now" : ": failed in the baseline, priced now"));
    return;
  }
  if (!a.ok) return;  // failed in both: nothing to compare
  all.push_back(deviation_of(a.id, "price", a.price_bits, a.std_error_bits, b.price_bits, b.std_error_bits));
  if (a.greek_bits.size() != b.greek_bits.size()) {
    mismatches.push_back(a.id + ": " + std::to_string(a.greek_bits.size() / 2) + " Greeks in the baseline, " +
                         std::to_string(b.greek_bits.size() / 2) + " now");
    return;
  }
  std::size_t const greeks = a.greek_bits.size() / 2;
  for (std::size_t k = 0; k < greeks; ++k) {
    all.push_back(deviation_of(a.id, greek_name(k, greeks), a.greek_bits[2 * k], a.greek_bits[2 * k + 1],
                               b.greek_bits[2 * k], b.greek_bits[2 * k + 1]));
  }
}

std::vector<phase_timing> compare_timing(const run_timing& a, const run_timing& b, const validation_options& o)
{
  std::vector<phase_timing> out{{"wall", a.wall_seconds, b.wall_seconds, false},
                                {"prepare", a.prepare_seconds, b.prepare_seconds, false},
                                {"price", a.price_seconds, b.price_seconds, false},
                                {"results", a.results_seconds, b.results_seconds, false}};
  for (auto& p : out) {
    p.regressed = p.candidate_seconds > p.baseline_seconds * (1.0 + o.latency_slack) &&
                  p.candidate_seconds - p.baseline_seconds > o.latency_floor_seconds;
  }
  return out;
}

std::string number(double x)
{
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.10g", x);
  return buf;
}

std::string describe(const deviation& d)
{
  char z[64];
  if (std::isinf(d.z)) std::snprintf(z, sizeof z, "no standard error to compare by");
  else std::snprintf(z, sizeof z, "%.2f std errors", d.z);
  return d.trade + " " + d.quantity + " " + number(d.baseline) + " +- " + number(d.baseline_se) + " -> " +
         number(d.candidate) + " +- " + number(d.candidate_se) + " (" + z + ")";
}

std::string verdict(const validation_report& r)
{
  if (!r.numbers_agree()) return "fail: numbers";
  if (!r.latency_holds()) return "fail: latency";
  return "pass";
}

nlohmann::json json_of(const deviation& d)
{
  return {{"trade", d.trade},         {"quantity", d.quantity},   {"baseline", d.baseline},
          {"baseline_se", d.baseline_se}, {"candidate", d.candidate}, {"candidate_se", d.candidate_se},
          {"std_errors", std::isinf(d.z) ? nlohmann::json(nullptr) : nlohmann::json(d.z)}};
}

}  // namespace

bool validation_report::latency_holds() const
{
  // The wall time decides: a pipelined book overlaps its phases, so one can take longer while
  // the run ends sooner. The phases say where a slower run lost its time.
  return std::none_of(timing.begin(), timing.end(), [](const phase_timing& p) { return p.phase == "wall" && p.regressed; });
}

std::string greek_name(std::size_t k, std::size_t count)
{
  static constexpr const char* single[] = {"delta", "gamma", "vega", "theta", "rho"};
  if (count == 5) return single[k];
  // Several assets: theta, rho, n deltas, n gammas, n vegas, n(n-1)/2 cross gammas, correlation vega.
  for (std::size_t n = 1; 3 + 3 * n + n * (n - 1) / 2 <= count; ++n) {
    if (3 + 3 * n + n * (n - 1) / 2 != count) continue;
    if (k == 0) return "theta";
    if (k == 1) return "rho";
    if (k == count - 1) return "correlation_vega";
    std::size_t const i = k - 2;
    if (i < 3 * n) {
      static constexpr const char* per_asset[] = {"deltas", "gammas", "vegas"};
      return std::string(per_asset[i / n]) + "[" + std::to_string(i % n) + "]";
    }
    return "cross_gammas[" + std::to_string(i - 3 * n) + "]";
  }
  return "greek[" + std::to_string(k) + "]";
}

validation_report validate_run(const run_manifest& baseline, const run_manifest& candidate,
                               const validation_options& options)
{
  validation_report r;
  r.settings = changed_settings(baseline, candidate);
  if (baseline.trades.size() != candidate.trades.size()) {
    r.mismatches.push_back("the baseline priced " + std::to_string(baseline.trades.size()) + " trades, this run " +
                           std::to_string(candidate.trades.size()));
  }
  std::vector<deviation> all;
  std::size_t const n = std::min(baseline.trades.size(), candidate.trades.size());
  for (std::size_t i = 0; i < n; ++i) {
    manifest_trade const& a = baseline.trades[i];
    manifest_trade const& b = candidate.trades[i];
    if (a.id != b.id) {
      r.mismatches.push_back("row " + std::to_string(i + 1) + ": trade " + a.id + " in the baseline, " + b.id + " now");
      continue;
    }
    ++r.trades_compared;
    compare_trade(a, b, all, r.mismatches);
  }
  r.numbers_compared = all.size();
  r.expected_outside_by_chance =
      static_cast<double>(all.size()) * std::erfc(options.tolerance / std::sqrt(2.0));
  std::stable_sort(all.begin(), all.end(), [](const deviation& x, const deviation& y) { return x.z > y.z; });
  for (auto const& d : all) {
    if (d.z > options.tolerance) r.outside.push_back(d);
  }
  all.resize(std::min(all.size(), largest_shown));
  r.largest = std::move(all);
  r.timing_recorded = baseline.timing.recorded && candidate.timing.recorded;
  if (r.timing_recorded) r.timing = compare_timing(baseline.timing, candidate.timing, options);
  return r;
}

void print_validation_report(std::ostream& out, const validation_report& r, const std::string& baseline_path,
                             const validation_options& options)
{
  char head[256];
  std::snprintf(head, sizeof head, "validation against %s (k = %g, latency slack %g%%): %s\n", baseline_path.c_str(),
                options.tolerance, 100.0 * options.latency_slack, verdict(r).c_str());
  out << head;
  char counts[256];
  std::snprintf(counts, sizeof counts,
                "  %zu trades, %zu numbers compared; %zu beyond %g standard errors (%.2g expected by chance)\n",
                r.trades_compared, r.numbers_compared, r.outside.size(), options.tolerance,
                r.expected_outside_by_chance);
  out << counts;
  for (auto const& s : r.inputs_changed) out << "  input changed: " << s << "\n";
  for (auto const& s : r.settings.may_change_results) out << "  changed, may change results: " << s << "\n";
  for (auto const& s : r.settings.never_change_results) out << "  changed, never changes results: " << s << "\n";
  for (auto const& s : r.mismatches) out << "  mismatch: " << s << "\n";
  constexpr std::size_t shown = 20;
  for (std::size_t i = 0; i < r.outside.size() && i < shown; ++i) out << "  outside: " << describe(r.outside[i]) << "\n";
  if (r.outside.size() > shown) out << "  ... and " << r.outside.size() - shown << " more outside\n";
  if (r.outside.empty()) {
    for (auto const& d : r.largest) out << "  largest: " << describe(d) << "\n";
  }
  if (!r.timing_recorded) {
    out << "  timing: not compared (a manifest written before timings were recorded)\n";
    return;
  }
  out << "  timing, seconds:  baseline  candidate  change\n";
  for (auto const& p : r.timing) {
    char line[160];
    double const change =
        p.baseline_seconds > 0.0 ? 100.0 * (p.candidate_seconds / p.baseline_seconds - 1.0) : 0.0;
    std::snprintf(line, sizeof line, "    %-8s %10.4f %10.4f %+7.1f%%%s\n", p.phase.c_str(), p.baseline_seconds,
                  p.candidate_seconds, change, !p.regressed ? "" : p.phase == "wall" ? "  regressed" : "  slower");
    out << line;
  }
}

nlohmann::json to_json(const validation_report& r, const std::string& baseline_path,
                       const validation_options& options)
{
  nlohmann::json outside = nlohmann::json::array();
  for (auto const& d : r.outside) outside.push_back(json_of(d));
  nlohmann::json largest = nlohmann::json::array();
  for (auto const& d : r.largest) largest.push_back(json_of(d));
  nlohmann::json timing = nullptr;
  if (r.timing_recorded) {
    timing = nlohmann::json::array();
    for (auto const& p : r.timing) {
      timing.push_back({{"phase", p.phase},
                        {"baseline_seconds", p.baseline_seconds},
                        {"candidate_seconds", p.candidate_seconds},
                        {"regressed", p.regressed}});
    }
  }
  return {{"mcprice_validation", 1},
          {"baseline", baseline_path},
          {"verdict", verdict(r)},
          {"tolerance", options.tolerance},
          {"latency_slack", options.latency_slack},
          {"latency_floor_seconds", options.latency_floor_seconds},
          {"trades_compared", r.trades_compared},
          {"numbers_compared", r.numbers_compared},
          {"expected_outside_by_chance", r.expected_outside_by_chance},
          {"inputs_changed", r.inputs_changed},
          {"may_change_results", r.settings.may_change_results},
          {"never_change_results", r.settings.never_change_results},
          {"mismatches", r.mismatches},
          {"outside", outside},
          {"largest", largest},
          {"timing", timing}};
}

}  // namespace mcprice::cli
