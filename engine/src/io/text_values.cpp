#include "io/text_values.hpp"

#include <charconv>
#include <cmath>
#include <sstream>

namespace mcprice::detail {

std::optional<double> parse_finite(std::string_view text)
{
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  if (text.empty()) return std::nullopt;
  double value = 0.0;
  auto const [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size() || !std::isfinite(value)) {
    return std::nullopt;
  }
  return value;
}

std::optional<std::int64_t> parse_count(std::string_view text)
{
  auto const v = parse_finite(text);
  constexpr double limit = 9007199254740992.0;  // 2^53: every integer below is exact
  if (!v || *v < 0.0 || *v > limit || std::floor(*v) != *v) return std::nullopt;
  return static_cast<std::int64_t>(*v);
}

std::vector<std::string_view> split(std::string_view text, char sep)
{
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  for (;;) {
    std::size_t const at = text.find(sep, start);
    std::string_view part = text.substr(start, at == std::string_view::npos ? text.npos : at - start);
    while (!part.empty() && part.front() == ' ') part.remove_prefix(1);
    while (!part.empty() && part.back() == ' ') part.remove_suffix(1);
    parts.push_back(part);
    if (at == std::string_view::npos) break;
    start = at + 1;
  }
  return parts;
}

std::string quoted(std::string_view text) { return "'" + std::string(text) + "'"; }

std::string shown(double value)
{
  std::ostringstream s;
  s.precision(10);
  s << value;
  return s.str();
}

}  // namespace mcprice::detail
