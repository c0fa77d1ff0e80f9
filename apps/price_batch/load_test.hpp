#pragma once
// `price-batch --load-test`: the seeded job stream through one engine per allocator strategy,
// the first strategy the bit-for-bit reference of the others; a terminal table on standard
// output and, with --load-json, the whole report (with memory over time) as JSON.
#include "command_line.hpp"
#include "load_runner.hpp"

#include <nlohmann/json.hpp>

#include <ostream>
#include <vector>

namespace mcprice::cli {

// Returns the exit status: 0 every strategy priced every trade with the reference's bits; 2
// otherwise (the table says which).
int run_load_test(const command_line& cl, std::ostream& table, std::ostream& log);

// --load-find-max: the ceiling search per allocator instead of one run at the offered rate;
// exit 0 where every allocator met the objective at some rate, 2 otherwise.
int run_load_ceiling(const command_line& cl, const market_data& market, std::ostream& table, std::ostream& log);

void print_load_table(std::ostream& out, const std::vector<load::strategy_result>& results);
// Held over the need on the device's timeline, "%.2f", or "-" where the allocator does not show
// the need (0).
std::string held_over(std::size_t held, std::size_t need);
nlohmann::json load_report_json(const command_line& cl, const std::vector<load::strategy_result>& results);
// A run's captured graphs (--graphs on), or null.
nlohmann::json graphs_json(const load::strategy_result& r);

}  // namespace mcprice::cli
