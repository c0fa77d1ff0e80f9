#pragma once
// Reading the contract's market JSON. Every problem is an input_error naming the file, the
// line and column of the offending value and its JSON pointer; the market is all or nothing.
// Keys starting with '_' are comments and ignored; any other unknown key is an error, so a
// typo such as "divdend_yield" cannot silently price with a zero dividend.
#include "mcprice/market.hpp"

#include <string>
#include <string_view>

namespace mcprice {

market_data read_market_file(const std::string& path);
market_data parse_market(std::string_view text, const std::string& source_name);

}  // namespace mcprice
