#pragma once
// Reading the contract's portfolio CSV. Structural problems (unreadable file, bad quoting,
// unknown or repeated columns, ragged rows) throw input_error with file:line:column: nothing
// can be priced. A bad value in one row only marks that trade (trade::row_error).
#include "mcprice/portfolio.hpp"

#include <string>
#include <string_view>

namespace mcprice {

portfolio read_portfolio_file(const std::string& path);
portfolio parse_portfolio(std::string_view text, const std::string& source_name);

}  // namespace mcprice
