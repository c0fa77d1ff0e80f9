#include "mcprice/input_error.hpp"

namespace mcprice {

std::string source_position::str() const
{
  std::string s = file;
  if (line > 0) s += ":" + std::to_string(line);
  if (line > 0 && column > 0) s += ":" + std::to_string(column);
  return s;
}

input_error::input_error(source_position where, const std::string& what)
    : std::runtime_error(where.str() + ": " + what), where_(std::move(where))
{
}

}  // namespace mcprice
