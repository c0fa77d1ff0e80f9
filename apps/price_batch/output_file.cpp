#include "output_file.hpp"

#include "mcprice/input_error.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <unistd.h>

namespace mcprice::cli {

void write_file_atomically(const std::string& path, const std::string& content)
{
  std::string const tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw input_error({path, 0, 0}, std::string("cannot write the results: ") + std::strerror(errno));
    out << content;
    out.flush();
    if (!out) {
      std::remove(tmp.c_str());
      throw input_error({path, 0, 0}, "cannot write the results (disk full?)");
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    int const err = errno;
    std::remove(tmp.c_str());
    throw input_error({path, 0, 0}, std::string("cannot replace the results file: ") + std::strerror(err));
  }
}

}  // namespace mcprice::cli
