#include "quantity.hpp"

#include "mcprice/input_error.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <utility>

namespace mcprice::cli {
namespace {

[[noreturn]] void bad(const std::string& option, const std::string& text, const char* expected)
{
  throw configuration_error(option + " " + text + ": expected " + expected);
}

std::pair<double, std::string> split_number(const std::string& text)
{
  double value = 0.0;
  auto const res = std::from_chars(text.data(), text.data() + text.size(), value);
  if (res.ec != std::errc{} || !std::isfinite(value)) return {-1.0, text};
  return {value, std::string(res.ptr, text.data() + text.size())};
}

}  // namespace

std::int64_t parse_count(const std::string& text, const std::string& option)
{
  auto const [v, rest] = split_number(text);
  if (!rest.empty() || v < 0.0 || v > 9007199254740992.0 || std::floor(v) != v) {
    bad(option, text, "a whole number such as 1000000 or 1e6");
  }
  return static_cast<std::int64_t>(v);
}

std::uint64_t parse_bytes(const std::string& text, const std::string& option)
{
  static const std::pair<const char*, double> units[] = {
      {"", 1.0},   {"B", 1.0},  {"KiB", 1024.0}, {"MiB", 1048576.0}, {"GiB", 1073741824.0}, {"TiB", 1099511627776.0},
      {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9},     {"TB", 1e12}};
  auto const [v, rest] = split_number(text);
  if (v >= 0.0) {
    for (auto const& [suffix, factor] : units) {
      if (rest == suffix) {
        double const bytes = std::floor(v * factor);
        if (bytes <= 1.8e19) return static_cast<std::uint64_t>(bytes);
      }
    }
  }
  bad(option, text, "a size such as 268435456, 256MiB or 2GiB");
}

double parse_positive(const std::string& text, const std::string& option)
{
  auto const [v, rest] = split_number(text);
  if (!rest.empty() || !(v > 0.0)) bad(option, text, "a number above zero such as 50");
  return v;
}

std::vector<int> parse_device_list(const std::string& text, const std::string& option)
{
  std::vector<int> out;
  std::size_t from = 0;
  while (from <= text.size()) {
    std::size_t const comma = std::min(text.find(',', from), text.size());
    std::string const item = text.substr(from, comma - from);
    if (item.empty()) bad(option, text, "all or GPU ordinals such as 0,1");
    std::int64_t const d = parse_count(item, option);
    if (d > 1024) throw configuration_error(option + " " + text + ": GPU " + item + " is out of range");
    out.push_back(static_cast<int>(d));
    from = comma + 1;
  }
  return out;
}

}  // namespace mcprice::cli
