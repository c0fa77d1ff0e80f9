#pragma once
// RFC 4180 records with positions: quoted fields ("" escapes a quote, commas and newlines
// inside quotes), CRLF or LF line ends, a UTF-8 byte-order mark, and the contract's skipped
// lines ('#' comments, blank lines). Every field remembers where it started, for messages.
#include <string>
#include <string_view>
#include <vector>

namespace mcprice::detail {

struct csv_field {
  std::string text;  // unquoted; surrounding spaces trimmed unless the field was quoted
  int column{0};     // 1-based, in characters from the start of the line
};

struct csv_record {
  int line{0};
  std::vector<csv_field> fields;
};

// Throws input_error (file:line:column) on a structural error such as an unterminated quote.
std::vector<csv_record> read_csv(std::string_view text, const std::string& file);

}  // namespace mcprice::detail
