#include "load_report_html.hpp"

#include "load_fragmentation.hpp"
#include "svg_chart.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace mcprice::cli {
namespace {

constexpr double mebibyte = 1024.0 * 1024.0;
// Strategies' colours; memory and fragmentation series have colours of their own, apart from
// these, so a reader (or a test reading pixels) never confuses the two.
const char* const palette[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2",
                               "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};

std::string fixed(double v, int digits)
{
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string mib_text(const nlohmann::json& bytes)
{
  return bytes.is_number() ? fixed(bytes.get<double>() / mebibyte, 1) : std::string("&ndash;");
}

// Column k of the memory samples, in MiB, against time.
chart_series memory_column(const nlohmann::json& samples, std::size_t k, const std::string& name, const char* color)
{
  chart_series s{name, color, {}, {}};
  for (auto const& row : samples) {
    s.x.push_back(row.at(0).get<double>());
    s.y.push_back(row.at(k).get<double>() / mebibyte);
  }
  return s;
}

// Fragmentation over time, from the same samples and by the same definitions as the table
// (load::fragmentation_of).
std::vector<chart_series> fragmentation_series(const nlohmann::json& samples, bool blocks_visible)
{
  chart_series internal{"internal", "#9467bd", {}, {}}, cached{"cached-unused", "#8c564b", {}, {}};
  chart_series external{"external", "#e377c2", {}, {}}, pinned{"non-releasable", "#d62728", {}, {}};
  for (auto const& row : samples) {
    load::memory_sample const m{row.at(0).get<double>(),
                                row.at(1).get<std::size_t>(),
                                row.at(2).get<std::size_t>(),
                                row.at(3).get<std::size_t>(),
                                row.at(4).get<std::size_t>(),
                                row.at(5).get<std::size_t>(),
                                -1};
    load::fragmentation const f = load::fragmentation_of(m);
    for (auto* s : {&internal, &cached, &external, &pinned}) s->x.push_back(m.t_s);
    internal.y.push_back(f.internal / mebibyte);
    cached.y.push_back(f.cached_unused / mebibyte);
    external.y.push_back(f.external / mebibyte);
    pinned.y.push_back(f.non_releasable / mebibyte);
  }
  if (!blocks_visible) return {internal, cached};
  return {internal, cached, external, pinned};
}

// One colour per allocator, the same in every chart.
const char* colour_of(const std::string& allocator)
{
  const char* const known[] = {"malloc", "async-default", "pool", "bucketed", "cpu"};
  for (std::size_t i = 0; i < 5; ++i) {
    if (allocator == known[i]) return palette[i];
  }
  return palette[9];
}

// The pressure a strategy ran under: its label's part after '@' ("" without a limit).
std::string pressure_of(const nlohmann::json& strategy)
{
  auto const label = strategy.at("label").get<std::string>();
  auto const at = label.find('@');
  return at == std::string::npos ? std::string() : label.substr(at + 1);
}

// The latency range of every strategy's jobs, so every histogram has the same bins and axis.
std::pair<double, double> latency_range(const nlohmann::json& strategies)
{
  double lo = 1e300, hi = 0.0;
  for (auto const& s : strategies) {
    for (auto const& v : s.at("job_latencies_ms")) {
      double const x = std::max(1e-3, v.get<double>());
      lo = std::min(lo, x);
      hi = std::max(hi, x);
    }
  }
  return {lo, hi};
}

// Shares of jobs (%) in log-spaced latency bins over [lo, hi].
chart latency_histogram(const nlohmann::json& strategies, const std::string& title, double lo, double hi)
{
  chart c{title, "latency, ms (log scale)", "share of jobs, %", true, true, {}};
  if (!(hi >= lo)) return c;
  constexpr int bins = 40;
  double const a = std::log10(lo), b = std::log10(hi) + 1e-9, width = std::max(b - a, 1e-6) / bins;
  for (auto const& s : strategies) {
    std::vector<double> counts(bins, 0.0);
    auto const& v = s.at("job_latencies_ms");
    for (auto const& x : v) {
      int const i =
          std::clamp(static_cast<int>((std::log10(std::max(1e-3, x.get<double>())) - a) / width), 0, bins - 1);
      counts[static_cast<std::size_t>(i)] += 1.0;
    }
    chart_series series{s.at("label").get<std::string>(), colour_of(s.at("allocator").get<std::string>()), {}, {}};
    for (int i = 0; i <= bins; ++i) {
      series.x.push_back(std::pow(10.0, a + width * i));
      double const n = i < bins ? counts[static_cast<std::size_t>(i)] : 0.0;
      series.y.push_back(v.empty() ? 0.0 : 100.0 * n / static_cast<double>(v.size()));
    }
    c.series.push_back(std::move(series));
  }
  return c;
}

// Every byte held from the driver at its peak, and as a multiple of the peak requested (reports
// saved before the figure existed show a dash).
std::string held_text(const nlohmann::json& peaks)
{
  double const held = peaks.value("held", 0.0);
  double const requested = peaks.value("requested", 0.0);
  if (held <= 0.0) return "&ndash;";
  return mib_text(peaks.at("held")) + (requested > 0.0 ? " (" + fixed(held / requested, 2) + "x)" : std::string());
}

void summary_table(std::ostream& o, const nlohmann::json& strategies)
{
  o << "<table>\n<tr><th>strategy</th><th>jobs/s</th><th>paths/s</th><th>latency p50 / p99 / max, ms</th>"
       "<th>alloc p50 / p99, &micro;s</th><th>peak requested / granted / reserved, MiB</th>"
       "<th>driver pool reserved, MiB</th><th>held from the driver, MiB (x requested)</th><th>device idle</th>"
       "<th>oom</th><th>retries</th><th>cap rejections</th><th>memory waits</th><th>cross-stream waits</th>"
       "<th>failed trades</th>"
       "<th>bits</th></tr>\n";
  for (auto const& s : strategies) {
    auto const& l = s.at("latency_ms");
    auto const& al = s.at("allocation_latency_us");
    auto const& p = s.at("peak_bytes");
    auto const& n = s.at("counts");
    auto const& idle = s.at("device_idle_fraction");
    bool const same = s.at("identical_to_reference").get<bool>();
    o << "<tr><td>" << escape_html(s.at("label").get<std::string>()) << "</td><td>"
      << fixed(s.at("jobs_per_s").get<double>(), 1) << "</td><td>" << fixed(s.at("paths_per_s").get<double>() / 1e6, 1)
      << "M</td><td>" << fixed(l.at("p50").get<double>(), 2) << " / " << fixed(l.at("p99").get<double>(), 2) << " / "
      << fixed(l.at("max").get<double>(), 2) << "</td><td>" << fixed(al.at("p50").get<double>(), 2) << " / "
      << fixed(al.at("p99").get<double>(), 2) << "</td><td>" << mib_text(p.at("requested")) << " / "
      << mib_text(p.at("granted")) << " / " << mib_text(p.at("reserved")) << "</td><td>"
      << (p.value("driver_reserved", 0.0) > 0.0 ? mib_text(p.at("driver_reserved")) : std::string("&ndash;"))
      << "</td><td>" << held_text(p) << "</td><td>"
      << (idle.is_number() ? fixed(100.0 * idle.get<double>(), 1) + "%" : std::string("&ndash;")) << "</td><td>"
      << n.at("out_of_memory") << "</td><td>"
      << n.at("retries").get<std::uint64_t>() + n.at("job_retries").get<std::uint64_t>() << "</td><td>"
      << n.at("cap_rejections") << "</td><td>" << n.at("memory_waits") << "</td><td>" << n.at("cross_stream_waits")
      << "</td><td>" << n.at("failed_trades") << "</td><td class=\"" << (same ? "ok" : "bad") << "\">"
      << (same ? "identical" : "DIFFER") << "</td></tr>\n";
  }
  o << "</table>\n";
}

void fragmentation_table(std::ostream& o, const nlohmann::json& strategies)
{
  o << "<table>\n<tr><th>strategy</th><th>internal</th><th>cached-unused</th><th>external</th>"
       "<th>non-releasable</th></tr>\n";
  for (auto const& s : strategies) {
    auto const& f = s.at("fragmentation_bytes");
    o << "<tr><td>" << escape_html(s.at("label").get<std::string>()) << "</td>";
    for (const char* k : {"internal", "cached_unused", "external", "non_releasable"}) {
      o << "<td>" << mib_text(f.at("at_peak").at(k)) << " / " << mib_text(f.at("time_weighted").at(k)) << "</td>";
    }
    o << "</tr>\n";
  }
  o << "</table>\n";
}

// --load-find-max: p99 latency and the bytes held from the driver against the offered load, a
// series per allocator (each step of its search a point, in order of rate), the objective as a
// line.
void ceiling_section(std::ostream& o, const nlohmann::json& ceiling)
{
  double const slo = ceiling.at("slo_ms").get<double>();
  o << "<h2>Ceiling</h2>\n<p class=\"note\">The offered rate is doubled while a run keeps its p99 job latency "
       "within "
    << fixed(slo, 1) << " ms and achieves at least " << fixed(100.0 * ceiling.at("keep_up").get<double>(), 0)
    << "% of the offered rate, then bisected. The strategies below are each allocator's highest such run.</p>\n";
  chart latency{"p99 job latency against offered load", "offered jobs/s", "ms", true, false, {}};
  chart held{"Bytes held from the driver against offered load", "offered jobs/s", "MiB", true, false, {}};
  double lo = 0.0;
  double hi = 0.0;
  std::size_t k = 0;
  for (auto const& a : ceiling.at("allocators")) {
    const char* color = palette[k++ % (sizeof palette / sizeof palette[0])];
    std::vector<std::pair<double, const nlohmann::json*>> steps;
    for (auto const& s : a.at("steps")) steps.emplace_back(s.at("offered_per_s").get<double>(), &s);
    std::sort(steps.begin(), steps.end(), [](auto const& x, auto const& y) { return x.first < y.first; });
    chart_series p99{a.at("label").get<std::string>(), color, {}, {}};
    chart_series bytes{a.at("label").get<std::string>(), color, {}, {}};
    for (auto const& [rate, s] : steps) {
      p99.x.push_back(rate);
      p99.y.push_back(s->at("latency_ms").at("p99").get<double>());
      bytes.x.push_back(rate);
      bytes.y.push_back(s->at("held_bytes").get<double>() / mebibyte);
      lo = lo == 0.0 ? rate : std::min(lo, rate);
      hi = std::max(hi, rate);
    }
    latency.series.push_back(std::move(p99));
    held.series.push_back(std::move(bytes));
  }
  if (hi > 0.0) latency.series.push_back({"objective", "#c00", {lo, hi}, {slo, slo}});
  o << render_svg(latency) << render_svg(held);
}

}  // namespace

std::string load_report_html(const nlohmann::json& report)
{
  auto const& settings = report.at("load_test");
  auto const& strategies = report.at("strategies");
  std::ostringstream o;
  o << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>mcprice load test</title>\n<style>\n"
       "body{font-family:sans-serif;margin:24px;color:#222;background:#fff}h1{font-size:22px}h2{font-size:17px;"
       "margin-top:28px}table{border-collapse:collapse;font-size:12px}td,th{border:1px solid #ccc;padding:3px 6px;"
       "text-align:right}th{background:#f2f2f2}td:first-child{text-align:left}.ok{color:#2a7d2a}.bad{color:#c00;"
       "font-weight:bold}.chart{display:block;margin:8px 0}.chart .title{font-size:13px;font-weight:bold}"
       ".chart .tick{font-size:10px;fill:#444}.chart .label{font-size:11px;fill:#333}.chart .legend{font-size:11px}"
       "p.note{font-size:12px;max-width:900px;color:#444}\n</style></head><body>\n";
  o << "<h1>mcprice load test</h1>\n<p class=\"note\">" << settings.at("jobs") << " jobs, seed " << settings.at("seed")
    << ", " << escape_html(settings.at("pattern").get<std::string>()) << " arrivals at "
    << fixed(settings.at("rate_per_s").get<double>(), 0) << "/s, " << settings.at("submitters")
    << " submitting threads, " << settings.at("streams") << " streams (0: the engine's default); mix";
  for (auto const& m : settings.at("mix")) {
    o << ' ' << escape_html(m.at("name").get<std::string>()) << ' ' << fixed(100.0 * m.at("weight").get<double>(), 0)
      << "% (" << m.at("trades") << " trades &times; " << m.at("paths") << " paths)";
  }
  o << ". Bits are compared with " << escape_html(settings.at("reference").get<std::string>()) << ".</p>\n";
  if (report.contains("ceiling")) ceiling_section(o, report.at("ceiling"));
  o << "<h2>Summary</h2>\n";
  summary_table(o, strategies);

  o << "<h2>Memory over time</h2>\n";
  for (auto const& s : strategies) {
    auto const& samples = s.at("memory");
    chart c{"Scratch memory: " + s.at("label").get<std::string>(), "time, s", "MiB", false, false, {}};
    c.series = {memory_column(samples, 1, "requested", "#1f77b4"), memory_column(samples, 2, "granted", "#ff7f0e"),
                memory_column(samples, 3, "reserved", "#2ca02c")};
    // The driver pool beneath the bucketed pool holds memory of its own (32 MiB chunks).
    if (s.at("allocator") == "bucketed" && !samples.empty() && samples.front().size() > 7) {
      c.series.push_back(memory_column(samples, 7, "driver pool reserved", "#17becf"));
    }
    o << render_svg(c);
  }
  // One histogram per pressure (the unlimited runs first), so each compares a few allocators.
  o << "<h2>Job latency</h2>\n";
  std::vector<std::string> pressures;
  for (auto const& s : strategies) {
    if (std::find(pressures.begin(), pressures.end(), pressure_of(s)) == pressures.end())
      pressures.push_back(pressure_of(s));
  }
  auto const [lo, hi] = latency_range(strategies);
  for (auto const& p : pressures) {
    nlohmann::json group = nlohmann::json::array();
    for (auto const& s : strategies) {
      if (pressure_of(s) == p) group.push_back(s);
    }
    std::string const title =
        "Job latency, arrival to results" + (p.empty() ? std::string() : " (pool limit " + p + " of the peak)");
    o << render_svg(latency_histogram(group, title, lo, hi));
  }

  o << "<h2>Fragmentation over time</h2>\n<p class=\"note\">Internal: granted &minus; requested (rounding inside "
       "live blocks). Cached-unused: reserved &minus; granted. External: cached-unused bytes outside the largest free "
       "block. Non-releasable: cached bytes whose frees the device has not passed. External and non-releasable are "
       "seen only in the bucketed pool; cudaMalloc and the default pool show no rounding or cache of their own. Table: "
       "MiB at peak reserved / time-weighted mean.</p>\n";
  fragmentation_table(o, strategies);
  for (auto const& s : strategies) {
    bool const visible = s.at("fragmentation_bytes").at("at_peak").at("external").is_number();
    chart c{"Fragmentation: " + s.at("label").get<std::string>(), "time, s", "MiB", false, false, {}};
    c.series = fragmentation_series(s.at("memory"), visible);
    o << render_svg(c);
  }
  o << "</body></html>\n";
  return o.str();
}

}  // namespace mcprice::cli
