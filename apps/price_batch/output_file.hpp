#pragma once
// Results are never half-written: they go to a temporary file beside the target, which is
// renamed over it only once complete.
#include <string>

namespace mcprice::cli {

void write_file_atomically(const std::string& path, const std::string& content);

}  // namespace mcprice::cli
