#pragma once
// Command-line quantities: counts that accept exponent form ("1e6") and byte sizes that
// accept binary and decimal suffixes ("256MiB", "2GiB", "1.5GB").
#include <cstdint>
#include <string>
#include <vector>

namespace mcprice::cli {

std::int64_t parse_count(const std::string& text, const std::string& option);  // throws configuration_error
std::uint64_t parse_bytes(const std::string& text, const std::string& option);
// A finite number above zero, such as 50 or 12.5.
double parse_positive(const std::string& text, const std::string& option);
// "0,1,3": GPU ordinals, each a count (--devices; the benchmarks' MCPRICE_BENCH_DEVICES).
std::vector<int> parse_device_list(const std::string& text, const std::string& option);

}  // namespace mcprice::cli
