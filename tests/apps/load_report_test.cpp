// The load test's report: fragmentation and idle time from memory samples, chart ticks, and the
// HTML page rendered in headless Chromium, its pixels read back to check the plots show what
// the numbers say.
#include "catch.hpp"
#include "command_line.hpp"
#include "load_fragmentation.hpp"
#include "load_report_html.hpp"
#include "load_test.hpp"
#include "svg_chart.hpp"

#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_PNG
#include <stb/stb_image.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <unistd.h>

using namespace mcprice;

namespace {
constexpr std::size_t mib = std::size_t{1} << 20;

load::memory_sample sample(double t, std::size_t req, std::size_t granted, std::size_t reserved, std::size_t largest,
                           std::size_t pending, int busy)
{
  return {t, req, granted, reserved, largest, pending, busy, reserved + 8 * mib};
}
}  // namespace

TEST_CASE("fragmentation at peak and time-weighted, and the device's idle share")
{
  std::vector<load::memory_sample> s = {sample(0.0, 10 * mib, 12 * mib, 20 * mib, 4 * mib, 2 * mib, 1),  // held 1 s
                                        sample(1.0, 30 * mib, 34 * mib, 40 * mib, 6 * mib, 0, 0),  // held 3 s: the peak
                                        sample(4.0, 0, 0, 40 * mib, 40 * mib, 40 * mib, 0)};  // the end: no duration
  auto const peak = load::fragmentation_at_peak(s);
  CHECK(peak.internal == 4.0 * mib);
  CHECK(peak.cached_unused == 6.0 * mib);
  CHECK(peak.external == 0.0);  // all the free bytes are one block
  CHECK(peak.non_releasable == 0.0);
  auto const mean = load::fragmentation_time_weighted(s);
  CHECK(mean.internal == Approx((2.0 * 1 + 4.0 * 3) / 4 * mib));
  CHECK(mean.cached_unused == Approx((8.0 * 1 + 6.0 * 3) / 4 * mib));
  CHECK(mean.external == Approx((4.0 * 1 + 0.0 * 3) / 4 * mib));
  CHECK(mean.non_releasable == Approx(2.0 / 4 * mib));
  CHECK(mean.reserved == Approx((20.0 + 120.0) / 4 * mib));
  CHECK(load::device_idle_fraction(s) == Approx(0.75));
  s[1].streams_busy = -1;
  CHECK(load::device_idle_fraction(s) == -1.0);  // a sample that does not know
  CHECK(load::fragmentation_at_peak({}).reserved == 0.0);
}

TEST_CASE("chart ticks are round and cover the range")
{
  CHECK(cli::nice_ticks(0.0, 10.0, 5) == std::vector<double>{0, 2, 4, 6, 8, 10});
  CHECK(cli::nice_ticks(0.0, 0.9, 4) == std::vector<double>{0, 0.5, 1.0});
  CHECK(cli::nice_ticks(3.0, 1234.0, 5) == std::vector<double>{0, 500, 1000, 1500});
  CHECK(cli::nice_ticks(-0.3, 0.25, 5) == std::vector<double>{-0.4, -0.2, 0, 0.2, 0.4});
  CHECK(cli::escape_html("a<b & \"c\">") == "a&lt;b &amp; &quot;c&quot;&gt;");
}

TEST_CASE("a long series is thinned to its highest points, so a spike survives")
{
  cli::chart c;
  c.max_points = 100;
  cli::chart_series s{"reserved", "#2ca02c", {}, {}};
  for (int i = 0; i < 10000; ++i) {
    s.x.push_back(i);
    s.y.push_back(i == 5003 ? 100.0 : 1.0);
  }
  c.series.push_back(s);
  std::string const svg = cli::render_svg(c);
  // The spike's point is drawn at the top of the plot (y = 100 is the top tick).
  CHECK(svg.find(",30 ") != std::string::npos);
  CHECK(std::count(svg.begin(), svg.end(), ',') <= 100 + 40);
}

namespace {

// Two strategies with memory, latency and fragmentation shapes a reader can see at once:
// reserved above granted above requested; the second strategy's jobs ten times slower.
std::vector<load::strategy_result> synthetic_results()
{
  std::vector<load::strategy_result> out(2);
  out[0].allocator = out[0].label = "bucketed";
  out[1].allocator = "malloc";
  out[1].label = "malloc@90%";
  for (std::size_t k = 0; k < 2; ++k) {
    auto& r = out[k];
    r.blocks_visible = k == 0;
    for (int i = 0; i <= 400; ++i) {
      double const t = 0.005 * i;
      r.memory.push_back(sample(t, 10 * mib, 14 * mib, 22 * mib, 3 * mib, 2 * mib, i % 3 == 0 ? 0 : 2));
    }
    for (int j = 0; j < 500; ++j) r.latencies_ms.push_back((k == 0 ? 1.0 : 10.0) * (1.0 + 0.1 * (j % 7)));
    r.latency_p50_ms = k == 0 ? 1.3 : 13.0;
    r.fragmentation_peak = load::fragmentation_at_peak(r.memory);
    r.fragmentation_mean = load::fragmentation_time_weighted(r.memory);
    r.device_idle = load::device_idle_fraction(r.memory);
  }
  return out;
}

struct rgb {
  int r, g, b;
};
rgb hex(const char* h)
{
  return {std::stoi(std::string(h + 1, 2), nullptr, 16), std::stoi(std::string(h + 3, 2), nullptr, 16),
          std::stoi(std::string(h + 5, 2), nullptr, 16)};
}

struct screenshot {
  int width{0}, height{0};
  std::vector<unsigned char> pixels;  // RGB
  // The pixels of one colour (within a small tolerance for anti-aliasing): their count and
  // median row and column.
  [[nodiscard]] std::vector<std::pair<int, int>> find(const char* colour) const
  {
    rgb const c = hex(colour);
    std::vector<std::pair<int, int>> at;
    for (int y = 0; y < height; ++y) {
      for (int x = 0; x < width; ++x) {
        unsigned char const* p = &pixels[3 * (static_cast<std::size_t>(y) * width + x)];
        if (std::abs(p[0] - c.r) <= 6 && std::abs(p[1] - c.g) <= 6 && std::abs(p[2] - c.b) <= 6) at.emplace_back(x, y);
      }
    }
    return at;
  }
};

// Only the first chart the colour appears in (the pixels within 250 rows of its first).
std::vector<std::pair<int, int>> first_chart(std::vector<std::pair<int, int>> at)
{
  if (at.empty()) return at;
  int const top = std::min_element(at.begin(), at.end(), [](auto a, auto b) { return a.second < b.second; })->second;
  at.erase(std::remove_if(at.begin(), at.end(), [&](auto p) { return p.second > top + 250; }), at.end());
  return at;
}

double median_of(std::vector<std::pair<int, int>> at, bool rows)
{
  std::vector<int> v;
  for (auto const& p : at) v.push_back(rows ? p.second : p.first);
  std::sort(v.begin(), v.end());
  return v.empty() ? -1.0 : v[v.size() / 2];
}

std::string chromium()
{
  if (char const* e = std::getenv("MCPRICE_CHROMIUM")) return e;
  for (const char* name : {"chromium-headless-shell", "chromium", "chromium-browser"}) {
    if (std::system(("command -v " + std::string(name) + " > /dev/null 2>&1").c_str()) == 0) return name;
  }
  return {};
}

std::string slurp(const std::filesystem::path& p)
{
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("the HTML report renders in headless Chromium and its plots show the numbers", "[chromium]")
{
  std::string const browser = chromium();
  if (browser.empty()) FAIL("headless Chromium is needed (Debian's chromium-headless-shell: make deps installs it)");
  cli::command_line cl;
  cl.load.jobs = 500;
  cl.load_pressures = {0.9};
  auto const results = synthetic_results();
  std::string const html = cli::load_report_html(cli::load_report_json(cl, results));
  // Self-contained: nothing to fetch.
  CHECK(html.find("<script") == std::string::npos);
  CHECK(html.find("src=") == std::string::npos);
  CHECK(html.find("href=") == std::string::npos);
  auto const dir = std::filesystem::temp_directory_path() / ("mcprice_report_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto const page = dir / "load.html", png = dir / "load.png", dom = dir / "dom.html";
  {
    std::ofstream(page) << html;
  }
  std::string const flags = " --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1000,2600 ";
  REQUIRE(std::system((browser + flags + "--screenshot=" + png.string() + " file://" + page.string() + " > " +
                       (dir / "log").string() + " 2>&1")
                          .c_str()) == 0);
  REQUIRE(std::system((browser + flags + "--dump-dom file://" + page.string() + " > " + dom.string() + " 2>> " +
                       (dir / "log").string())
                          .c_str()) == 0);

  std::string const rendered = slurp(dom);
  CHECK(rendered.find("mcprice load test") != std::string::npos);
  CHECK(rendered.find("malloc@90%") != std::string::npos);
  // Memory: three lines per strategy and the driver pool beneath the bucketed one; a latency
  // histogram per pressure (one line each); fragmentation 4 (bucketed) + 2.
  int polylines = 0;
  for (auto at = rendered.find("<polyline"); at != std::string::npos; at = rendered.find("<polyline", at + 1))
    ++polylines;
  CHECK(polylines == 2 * 3 + 1 + 2 + 4 + 2);

  screenshot shot;
  int channels = 0;
  unsigned char* data = stbi_load(png.string().c_str(), &shot.width, &shot.height, &channels, 3);
  REQUIRE(data != nullptr);
  shot.pixels.assign(data, data + 3 * static_cast<std::size_t>(shot.width) * shot.height);
  stbi_image_free(data);
  CHECK(shot.width == 1000);

  // Memory: every series drawn, reserved above granted above requested on the screen.
  auto const requested = shot.find("#1f77b4"), granted = shot.find("#ff7f0e"), reserved = shot.find("#2ca02c");
  auto const driver = shot.find("#17becf");
  CHECK(driver.size() > 800);
  CHECK(median_of(first_chart(driver), true) < median_of(first_chart(reserved), true));
  CHECK(requested.size() > 800);
  CHECK(granted.size() > 800);
  CHECK(reserved.size() > 800);
  CHECK(median_of(first_chart(reserved), true) < median_of(first_chart(granted), true));
  CHECK(median_of(first_chart(granted), true) < median_of(first_chart(requested), true));
  // Latency: the slower strategy's histogram lies to the right of the faster one's.
  auto const fast = shot.find("#e15759"), slow = shot.find("#4e79a7");  // bucketed, malloc
  CHECK(fast.size() > 200);
  CHECK(slow.size() > 200);
  CHECK(median_of(fast, false) < median_of(slow, false));
  // Fragmentation: all four measures for the bucketed pool, the two it can see for malloc.
  for (const char* c : {"#9467bd", "#8c564b", "#e377c2", "#d62728"}) CHECK(shot.find(c).size() > 300);
  if (std::getenv("MCPRICE_KEEP_REPORT") == nullptr) std::filesystem::remove_all(dir);
}
