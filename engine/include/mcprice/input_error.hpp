#pragma once
// Errors in what a user gave us. input_error points into a file (file:line:column), as a
// compiler does; configuration_error is about the command line or engine options.
#include <stdexcept>
#include <string>

namespace mcprice {

struct source_position {
  std::string file;
  int line{0};    // 1-based; 0 = the whole file
  int column{0};  // 1-based; 0 = the whole line

  [[nodiscard]] std::string str() const;  // "file:line:column", shortened when unknown
};

class input_error : public std::runtime_error {
 public:
  input_error(source_position where, const std::string& what);
  [[nodiscard]] const source_position& where() const noexcept { return where_; }

 private:
  source_position where_;
};

class configuration_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace mcprice
