// libFuzzer target: the run-manifest reader (`price-batch --rerun FILE`) on arbitrary bytes. Text
// that is not JSON is refused by the JSON parser; JSON that is not a manifest must be refused
// with configuration_error naming the field. Anything else escaping, a crash or a sanitizer
// report is a finding. Build and run: make fuzz (docs/reliability.md).
#include "mcprice/input_error.hpp"
#include "run_manifest.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  auto const j = nlohmann::json::parse(data, data + size, nullptr, false);
  if (j.is_discarded()) return 0;
  try {
    auto const m = mcprice::cli::manifest_from_json(j, "fuzz.json");
    // A manifest read back must write out again.
    (void)mcprice::cli::to_json(m).dump();
  } catch (const mcprice::configuration_error&) {
  }
  return 0;
}
