// libFuzzer target: the market parser (JSON) on arbitrary bytes. A bad file may throw
// input_error; anything else escaping, a crash or a sanitizer report is a finding.
#include "mcprice/input_error.hpp"
#include "mcprice/market_reader.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  std::string_view const text(reinterpret_cast<const char*>(data), size);
  try {
    auto const market = mcprice::parse_market(text, "fuzz.json");
    // Query what the engine will query: curves at a few times, every asset's terms, correlations.
    double sink = market.discount().discount(1.0);
    for (std::size_t i = 0; i < market.assets().size(); ++i) {
      auto const& a = market.assets()[i];
      sink += a.vol.total_variance(2.0) + a.dividend.discount(0.5) + market.log_forward(a, 3.0);
      for (std::size_t j = 0; j < market.assets().size(); ++j) sink += market.correlation(i, j);
    }
    (void)sink;
  } catch (const mcprice::input_error&) {
  }
  return 0;
}
