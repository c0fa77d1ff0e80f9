#pragma once
// Reading the contract's portfolio CSV. Structural problems (unreadable file, bad quoting,
// unknown or repeated columns, ragged rows) throw input_error with file:line:column: nothing
// can be priced. A bad value in one row only marks that trade (trade::row_error).
#include "mcprice/portfolio.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace mcprice {

portfolio read_portfolio_file(const std::string& path);
portfolio parse_portfolio(std::string_view text, const std::string& source_name);

// A book already split into cells (a DataFrame's columns, say): the header's names and each
// row's texts, read by the very rules of the CSV's header and rows. A cell is the text the CSV
// would hold, unquoted; an empty cell is a value not given. Positions in messages count the
// header as line 1 and columns by their 1-based index.
struct portfolio_table {
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;  // rows[r][c]: the cell of column c
};
portfolio read_portfolio_table(portfolio_table table, const std::string& source_name);

}  // namespace mcprice
