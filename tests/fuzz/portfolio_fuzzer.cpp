// libFuzzer target: the portfolio parser on arbitrary bytes. A bad file may throw input_error
// (the contract's file-level error); anything else escaping, a crash or a sanitizer report is a
// finding. Build and run: make fuzz (docs/reliability.md).
#include "mcprice/input_error.hpp"
#include "mcprice/portfolio_reader.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  std::string_view const text(reinterpret_cast<const char*>(data), size);
  try {
    auto const book = mcprice::parse_portfolio(text, "fuzz.csv");
    // Touch every parsed row: the checks must leave each one readable.
    std::size_t n = 0;
    for (auto const& t : book.trades) n += t.id.size() + t.row_error.size() + t.underlyings.size();
    (void)n;
  } catch (const mcprice::input_error&) {
  }
  return 0;
}
