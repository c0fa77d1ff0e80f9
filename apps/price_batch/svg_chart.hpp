#pragma once
// Line charts as inline SVG, for reports that must open anywhere with nothing beside them (the
// load test's HTML report): axes with round ticks, one polyline per series, a legend. Long
// series are thinned to at most `max_points` by keeping each stretch's highest point, so peaks
// survive.
#include <string>
#include <vector>

namespace mcprice::cli {

struct chart_series {
  std::string name;
  std::string color;  // CSS colour
  std::vector<double> x;
  std::vector<double> y;
};

struct chart {
  std::string title;
  std::string x_label;
  std::string y_label;
  bool log_x{false};  // x > 0 only
  bool steps{false};  // a step function (histograms): each y holds until the next x
  std::vector<chart_series> series;
  int width{720};
  int height{260};
  std::size_t max_points{1500};
};

std::string render_svg(const chart& c);

// Round tick values (1, 2 or 5 times a power of ten apart), at most about `target` steps, the
// first at or below lo and the last at or above hi.
std::vector<double> nice_ticks(double lo, double hi, int target);

// Text safe inside HTML and SVG elements and attributes.
std::string escape_html(const std::string& text);

}  // namespace mcprice::cli
