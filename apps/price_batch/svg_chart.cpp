#include "svg_chart.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

namespace mcprice::cli {
namespace {

constexpr double left = 70.0, right = 16.0, bottom = 42.0, legend_row = 16.0;

double legend_width(const chart_series& s) { return 16.0 + 7.0 * static_cast<double>(s.name.size()) + 12.0; }

std::string number(double v)
{
  char buf[32];
  if (v != 0.0 && (std::fabs(v) >= 1e6 || std::fabs(v) < 1e-3)) std::snprintf(buf, sizeof buf, "%.0e", v);
  else std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// Keeps at most n points: each stretch of the series gives its highest point.
void thin(const chart_series& s, std::size_t n, std::vector<double>& x, std::vector<double>& y)
{
  std::size_t const size = std::min(s.x.size(), s.y.size());
  if (size <= n || n < 2) {
    x.assign(s.x.begin(), s.x.begin() + static_cast<std::ptrdiff_t>(size));
    y.assign(s.y.begin(), s.y.begin() + static_cast<std::ptrdiff_t>(size));
    return;
  }
  for (std::size_t b = 0; b < n; ++b) {
    std::size_t const lo = b * size / n, hi = std::max(lo + 1, (b + 1) * size / n);
    std::size_t best = lo;
    for (std::size_t i = lo; i < hi; ++i) {
      if (s.y[i] > s.y[best]) best = i;
    }
    x.push_back(s.x[best]);
    y.push_back(s.y[best]);
  }
}

}  // namespace

std::vector<double> nice_ticks(double lo, double hi, int target)
{
  if (!(hi > lo)) hi = lo + 1.0;
  double const raw = (hi - lo) / std::max(1, target);
  double const power = std::pow(10.0, std::floor(std::log10(raw)));
  double step = power;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    step = m * power;
    if (step >= raw) break;
  }
  std::vector<double> ticks;
  double const first = std::floor(lo / step + 1e-9), last = std::ceil(hi / step - 1e-9);
  for (double k = first; k <= last; k += 1.0) ticks.push_back(k * step);
  return ticks;
}

std::string escape_html(const std::string& text)
{
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string render_svg(const chart& c)
{
  auto const tx = [&](double x) { return c.log_x ? std::log10(std::max(x, 1e-300)) : x; };
  double x_lo = std::numeric_limits<double>::infinity(), x_hi = -x_lo, y_hi = 0.0;
  for (auto const& s : c.series) {
    for (std::size_t i = 0; i < std::min(s.x.size(), s.y.size()); ++i) {
      if (c.log_x && !(s.x[i] > 0.0)) continue;
      x_lo = std::min(x_lo, tx(s.x[i]));
      x_hi = std::max(x_hi, tx(s.x[i]));
      y_hi = std::max(y_hi, s.y[i]);
    }
  }
  // The legend: up to four entries right-aligned beside the title where they fit; otherwise in
  // rows below it, in reading order.
  std::vector<std::pair<double, double>> legend_at(c.series.size());
  double const x_end = c.width - right;
  double row_y = 8.0;
  double total = 0.0;
  for (auto const& s : c.series) total += legend_width(s);
  double const title_end = left + 7.5 * static_cast<double>(c.title.size()) + 20.0;
  if (c.series.size() <= 4 && x_end - total >= title_end) {
    double legend_x = x_end;
    for (std::size_t k = c.series.size(); k-- > 0;) {
      legend_x -= legend_width(c.series[k]);
      legend_at[k] = {legend_x, row_y};
    }
  } else {
    row_y = 26.0;
    double legend_x = left;
    for (std::size_t k = 0; k < c.series.size(); ++k) {
      double const wk = legend_width(c.series[k]);
      if (legend_x + wk > x_end && legend_x > left) {
        row_y += legend_row;
        legend_x = left;
      }
      legend_at[k] = {legend_x, row_y};
      legend_x += wk;
    }
  }
  double const top = 30.0 + row_y - 8.0;
  bool const empty = !(x_hi >= x_lo);
  if (empty) x_lo = 0.0, x_hi = 1.0;
  if (!(x_hi > x_lo)) x_hi = x_lo + 1.0;
  std::vector<double> const y_ticks = nice_ticks(0.0, y_hi > 0.0 ? y_hi : 1.0, 5);
  double const y_top = y_ticks.back();
  double const w = c.width, h = c.height + top - 30.0, pw = w - left - right, ph = h - top - bottom;
  auto const px = [&](double x) { return left + (tx(x) - x_lo) / (x_hi - x_lo) * pw; };
  auto const py = [&](double y) { return top + ph - y / y_top * ph; };

  std::ostringstream o;
  o.precision(5);
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"" << w << "\" height=\"" << h
    << "\" viewBox=\"0 0 " << w << ' ' << h << "\" role=\"img\" aria-label=\"" << escape_html(c.title) << "\">\n";
  o << "<rect x=\"0\" y=\"0\" width=\"" << w << "\" height=\"" << h << "\" fill=\"#ffffff\"/>\n";
  o << "<text x=\"" << left << "\" y=\"18\" class=\"title\">" << escape_html(c.title) << "</text>\n";
  for (double t : y_ticks) {
    o << "<line x1=\"" << left << "\" x2=\"" << w - right << "\" y1=\"" << py(t) << "\" y2=\"" << py(t)
      << "\" stroke=\"#e4e4e4\"/><text x=\"" << left - 6 << "\" y=\"" << py(t) + 4
      << "\" text-anchor=\"end\" class=\"tick\">" << number(t) << "</text>\n";
  }
  std::vector<double> x_ticks;
  if (c.log_x) {
    for (double e = std::ceil(x_lo - 1e-9); e <= x_hi + 1e-9; e += 1.0) x_ticks.push_back(std::pow(10.0, e));
  } else {
    x_ticks = nice_ticks(x_lo, x_hi, 8);
  }
  for (double t : x_ticks) {
    double const x = px(t);
    if (x < left - 0.5 || x > w - right + 0.5) continue;
    o << "<line x1=\"" << x << "\" x2=\"" << x << "\" y1=\"" << top + ph << "\" y2=\"" << top + ph + 4
      << "\" stroke=\"#555\"/><text x=\"" << x << "\" y=\"" << top + ph + 16
      << "\" text-anchor=\"middle\" class=\"tick\">" << number(t) << "</text>\n";
  }
  o << "<line x1=\"" << left << "\" x2=\"" << w - right << "\" y1=\"" << top + ph << "\" y2=\"" << top + ph
    << "\" stroke=\"#555\"/><line x1=\"" << left << "\" x2=\"" << left << "\" y1=\"" << top << "\" y2=\"" << top + ph
    << "\" stroke=\"#555\"/>\n";
  o << "<text x=\"" << left + pw / 2 << "\" y=\"" << h - 6 << "\" text-anchor=\"middle\" class=\"label\">"
    << escape_html(c.x_label) << "</text>\n";
  o << "<text transform=\"translate(14," << top + ph / 2 << ") rotate(-90)\" text-anchor=\"middle\" class=\"label\">"
    << escape_html(c.y_label) << "</text>\n";
  if (empty) {
    o << "<text x=\"" << left + pw / 2 << "\" y=\"" << top + ph / 2 << "\" text-anchor=\"middle\" class=\"label\">"
      << "no data</text>\n";
  }
  for (std::size_t k = 0; k < c.series.size(); ++k) {
    auto const [lx, ly] = legend_at[k];
    o << "<rect x=\"" << lx << "\" y=\"" << ly << "\" width=\"12\" height=\"12\" fill=\"" << c.series[k].color
      << "\"/><text x=\"" << lx + 16 << "\" y=\"" << ly + 10 << "\" class=\"legend\">" << escape_html(c.series[k].name)
      << "</text>\n";
  }
  // The last series is drawn first: the first named (requested, say) stays visible on top.
  for (auto it = c.series.rbegin(); it != c.series.rend(); ++it) {
    auto const& s = *it;
    std::vector<double> xs, ys;
    thin(s, c.max_points, xs, ys);
    o << "<polyline class=\"series\" data-name=\"" << escape_html(s.name) << "\" fill=\"none\" stroke=\"" << s.color
      << "\" stroke-width=\"2\" stroke-linejoin=\"round\" points=\"";
    for (std::size_t i = 0; i < xs.size(); ++i) {
      if (c.log_x && !(xs[i] > 0.0)) continue;
      if (c.steps && i > 0) o << px(xs[i]) << ',' << py(ys[i - 1]) << ' ';
      o << px(xs[i]) << ',' << py(ys[i]) << ' ';
    }
    o << "\"/>\n";
  }
  o << "</svg>\n";
  return o.str();
}

}  // namespace mcprice::cli
