// libFuzzer target: price-batch's command line (the load test's options above all: --load-mix,
// --load-rate, --load-slo, --pool-limit as percentages, --allocators) on arbitrary arguments.
// The input is split at newlines into arguments after "price-batch". A bad command line must be
// refused with configuration_error (exit 1 in price-batch); anything else escaping, a crash or a
// sanitizer report is a finding. Build and run: make fuzz (docs/reliability.md).
#include "command_line.hpp"
#include "mcprice/input_error.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  std::vector<std::string> args{"price-batch"};
  std::string arg;
  for (std::size_t i = 0; i < size; ++i) {
    if (data[i] == '\n') {
      args.push_back(arg);
      arg.clear();
    } else {
      arg.push_back(static_cast<char>(data[i]));
    }
  }
  if (!arg.empty()) args.push_back(arg);
  std::vector<const char*> argv;
  for (auto const& a : args) argv.push_back(a.c_str());
  try {
    (void)mcprice::cli::parse_command_line(static_cast<int>(argv.size()), argv.data());
  } catch (const mcprice::configuration_error&) {
  }
  return 0;
}
