#include "io/file_text.hpp"

#include "mcprice/input_error.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace mcprice::detail {

std::string read_file_text(const std::string& path, const char* what)
{
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw input_error({path, 0, 0}, std::string("cannot open the ") + what + " file: " + std::strerror(errno));
  }
  std::ostringstream buf;
  buf << in.rdbuf();
  if (in.bad()) throw input_error({path, 0, 0}, std::string("cannot read the ") + what + " file");
  return buf.str();
}

}  // namespace mcprice::detail
