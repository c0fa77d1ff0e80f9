#pragma once
// Where each value of a JSON text starts, by JSON pointer ("/assets/ABC/vol" -> line:column),
// so that a value of the wrong type or range is reported at its place in the file, not only
// by path. nlohmann::json keeps no positions; a SAX pass over a counting iterator recovers
// them.
#include <map>
#include <string>
#include <string_view>

namespace mcprice::detail {

struct text_position {
  int line{0};
  int column{0};
};

class json_positions {
 public:
  explicit json_positions(std::string_view text);  // text must be valid JSON and outlive this
  // Position of the value at `pointer`, or of its nearest recorded ancestor.
  [[nodiscard]] text_position at(const std::string& pointer) const;

 private:
  std::string_view text_;
  std::map<std::string, std::size_t> positions_;  // byte offsets
};

// Line and column (1-based) of a byte offset.
text_position position_of(std::string_view text, std::size_t offset);

}  // namespace mcprice::detail
