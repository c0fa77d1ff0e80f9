#pragma once
#include <string>

namespace mcprice::detail {
// Whole file as text; throws input_error naming the file and the system's reason.
std::string read_file_text(const std::string& path, const char* what);
}  // namespace mcprice::detail
