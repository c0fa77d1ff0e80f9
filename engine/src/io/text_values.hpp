#pragma once
// Strict conversion of text cells to numbers: the whole cell must be a finite number.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mcprice::detail {

std::optional<double> parse_finite(std::string_view text);
// A count written as an integer or in exponent form ("1e6"), exact and within [0, 2^53].
std::optional<std::int64_t> parse_count(std::string_view text);
std::vector<std::string_view> split(std::string_view text, char sep);
std::string quoted(std::string_view text);  // for messages: 'text'
std::string shown(double value);            // for messages: ten significant digits

}  // namespace mcprice::detail
