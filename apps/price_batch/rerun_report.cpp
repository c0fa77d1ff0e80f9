#include "rerun_report.hpp"

#include "sha256.hpp"

#include <cmath>
#include <cstdio>
#include <sstream>
#include <utility>

namespace mcprice::cli {
namespace {

template <typename T>
std::string changed(const char* what, const T& a, const T& b)
{
  std::ostringstream s;
  s << what << " " << a << " -> " << b;
  return s.str();
}

std::string number(double x)
{
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}

std::string describe(const manifest_trade& a, const manifest_trade& b)
{
  if (a.ok != b.ok) return a.ok ? "priced before, fails now" : "failed before, priced now";
  double const pa = double_of(a.price_bits);
  double const pb = double_of(b.price_bits);
  double const se = double_of(a.std_error_bits);
  std::ostringstream s;
  s << "price " << number(pa) << " -> " << number(pb);
  if (se > 0.0) {
    char buf[64];
    std::snprintf(buf, sizeof buf, " (%+.3g, %.3g std errors)", pb - pa, std::abs(pb - pa) / se);
    s << buf;
  }
  if (a.std_error_bits != b.std_error_bits)
    s << "; std_error " << number(se) << " -> " << number(double_of(b.std_error_bits));
  if (a.greek_bits != b.greek_bits) {
    if (a.greek_bits.empty() || b.greek_bits.empty()) {
      s << (a.greek_bits.empty() ? "; Greeks now, none recorded" : "; Greeks recorded, none now");
    } else if (a.greek_bits.size() != 10 || b.greek_bits.size() != 10) {
      s << "; Greeks differ";  // a multi-asset trade's: trade_greeks::all() order
    } else {
      constexpr const char* names[] = {"delta", "gamma", "vega", "theta", "rho"};
      for (std::size_t k = 0; k < 5; ++k) {
        if (a.greek_bits[2 * k] != b.greek_bits[2 * k] || a.greek_bits[2 * k + 1] != b.greek_bits[2 * k + 1]) {
          s << "; " << names[k] << " " << number(double_of(a.greek_bits[2 * k])) << " -> "
            << number(double_of(b.greek_bits[2 * k]));
        }
      }
    }
  }
  return s.str();
}

}  // namespace

std::vector<std::string> changed_inputs(const run_manifest& recorded)
{
  std::vector<std::string> out;
  for (auto const* f : {&recorded.portfolio, &recorded.market}) {
    std::string now;
    try {
      now = sha256_of_file(f->path);
    } catch (const std::exception&) {
      out.push_back(f->path + ": cannot be read now");
      continue;
    }
    if (now != f->sha256) out.push_back(f->path + ": sha256 " + f->sha256 + " -> " + now);
  }
  return out;
}

setting_changes changed_settings(const run_manifest& recorded, const run_manifest& now)
{
  setting_changes out;
  const engine_options& a = recorded.settings;
  const engine_options& b = now.settings;
  auto& may = out.may_change_results;
  auto& never = out.never_change_results;
  // The numbers' definition: these may move bits (docs/determinism.md).
  if (a.seed != b.seed) may.push_back(changed("setting seed", a.seed, b.seed));
  if (a.paths != b.paths) may.push_back(changed("setting paths", a.paths, b.paths));
  if (a.steps != b.steps) may.push_back(changed("setting steps", a.steps, b.steps));
  if (a.antithetic != b.antithetic) may.push_back(changed("setting antithetic", a.antithetic, b.antithetic));
  if (a.greeks != b.greeks) may.push_back(changed("setting greeks", a.greeks, b.greeks));
  if (a.precision != b.precision) {
    auto const name = [](path_precision p) { return p == path_precision::float64 ? "double" : "float"; };
    may.push_back(changed("setting precision", name(a.precision), name(b.precision)));
  }
  if (a.rng != b.rng) {
    auto const name = [](rng_kind k) { return k == rng_kind::sobol ? "sobol" : "pseudo"; };
    may.push_back(changed("setting rng", name(a.rng), name(b.rng)));
  }
  if (a.rng == rng_kind::sobol && a.rqmc_replicates != b.rqmc_replicates) {
    may.push_back(changed("setting rqmc_replicates", a.rqmc_replicates, b.rqmc_replicates));
  }
  if (a.calibration_paths != b.calibration_paths) {
    may.push_back(changed("setting calibration_paths", a.calibration_paths, b.calibration_paths));
  }
  if (a.control_variates != b.control_variates) {
    may.push_back(changed("setting control_variates", a.control_variates, b.control_variates));
  }
  if (recorded.backend != now.backend) may.push_back(changed("backend", recorded.backend, now.backend));
  if (recorded.engine_version != now.engine_version || recorded.engine_commit != now.engine_commit) {
    may.push_back("engine " + recorded.engine_version + " (" + recorded.engine_commit + ") -> " + now.engine_version +
                  " (" + now.engine_commit + ")");
  }
  // The CPU backend's "device" names its thread count, which never changes results.
  bool const both_cpu = recorded.backend == "cpu" && now.backend == "cpu";
  if (recorded.device != now.device && !both_cpu) may.push_back(changed("device", recorded.device, now.device));
  if (recorded.compute_capability != now.compute_capability) {
    may.push_back(changed("compute capability", recorded.compute_capability, now.compute_capability));
  }
  if (recorded.runtime_version != now.runtime_version) {
    may.push_back(changed("CUDA runtime", recorded.runtime_version, now.runtime_version));
  }
  if (recorded.host != now.host) {
    (now.backend == "cpu" ? may : never)
        .push_back(changed("host", recorded.host, now.host) +
                   (now.backend == "cpu" ? " (the CPU backend uses the host's maths library)" : ""));
  }
  // Execution settings: these never move bits; a difference found with only these changed is a bug.
  if (a.threads != b.threads) never.push_back(changed("setting threads", a.threads, b.threads));
  if (a.device != b.device) never.push_back(changed("setting device (ordinal)", a.device, b.device));
  if (a.streams != b.streams) never.push_back(changed("setting streams", a.streams, b.streams));
  if (a.job_cap_bytes != b.job_cap_bytes)
    never.push_back(changed("setting job_cap_bytes", a.job_cap_bytes, b.job_cap_bytes));
  if (a.allocator != b.allocator) {
    never.push_back(changed("setting allocator", static_cast<int>(a.allocator), static_cast<int>(b.allocator)));
  }
  if (a.pool_limit_bytes != b.pool_limit_bytes) {
    never.push_back(changed("setting pool_limit_bytes", a.pool_limit_bytes, b.pool_limit_bytes));
  }
  if (a.grid_blocks != b.grid_blocks) never.push_back(changed("setting grid_blocks", a.grid_blocks, b.grid_blocks));
  if (a.route != b.route)
    never.push_back(changed("setting route", static_cast<int>(a.route), static_cast<int>(b.route)));
  if (a.graphs != b.graphs)
    never.push_back(changed("setting graphs", static_cast<int>(a.graphs), static_cast<int>(b.graphs)));
  if (a.pipeline_chunk_trades != b.pipeline_chunk_trades) {
    never.push_back(changed("setting pipeline_chunk_trades", a.pipeline_chunk_trades, b.pipeline_chunk_trades));
  }
  if (recorded.driver_version != now.driver_version) {
    never.push_back(changed("CUDA driver", recorded.driver_version, now.driver_version) +
                    " (the kernels and their maths are compiled in, not by the driver)");
  }
  return out;
}

rerun_report compare_runs(const run_manifest& recorded, const run_manifest& now)
{
  rerun_report r;
  auto changes = changed_settings(recorded, now);
  r.may_change_results = std::move(changes.may_change_results);
  r.never_change_results = std::move(changes.never_change_results);
  if (recorded.trades.size() != now.trades.size()) {
    r.trades_differing.push_back("the run priced " + std::to_string(now.trades.size()) +
                                 " trades, the manifest records " + std::to_string(recorded.trades.size()));
  }
  std::size_t const n = std::min(recorded.trades.size(), now.trades.size());
  for (std::size_t i = 0; i < n; ++i) {
    manifest_trade const& x = recorded.trades[i];
    manifest_trade const& y = now.trades[i];
    ++r.trades_compared;
    if (x.id != y.id) {
      r.trades_differing.push_back("row " + std::to_string(i + 1) + ": trade " + x.id + " -> " + y.id);
    } else if (x.ok != y.ok || x.price_bits != y.price_bits || x.std_error_bits != y.std_error_bits ||
               x.greek_bits != y.greek_bits) {
      r.trades_differing.push_back(x.id + ": " + describe(x, y));
    }
  }
  return r;
}

void print_rerun_report(std::ostream& out, const rerun_report& r, const std::string& manifest_path)
{
  out << "rerun of " << manifest_path << ": ";
  if (r.trades_compared == 0 && !r.inputs_changed.empty()) out << "the inputs changed\n";
  else {
    out << r.trades_compared << " trades compared, "
        << (r.identical() ? "all bit-identical" : std::to_string(r.trades_differing.size()) + " differ") << "\n";
  }
  for (auto const& s : r.inputs_changed) out << "  input changed: " << s << "\n";
  for (auto const& s : r.may_change_results) out << "  changed, may change results: " << s << "\n";
  for (auto const& s : r.never_change_results) out << "  changed, never changes results: " << s << "\n";
  constexpr std::size_t shown = 20;
  for (std::size_t i = 0; i < r.trades_differing.size() && i < shown; ++i)
    out << "  differs: " << r.trades_differing[i] << "\n";
  if (r.trades_differing.size() > shown) out << "  ... and " << r.trades_differing.size() - shown << " more\n";
  if (!r.identical() && r.may_change_results.empty() && r.inputs_changed.empty()) {
    out << "  nothing that may change results changed: this difference is a reproducibility bug\n";
  }
}

}  // namespace mcprice::cli
