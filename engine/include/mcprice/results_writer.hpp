#pragma once
// The contract's results: one row per input trade in input order. Numbers are written in the
// shortest form that reads back to the same double, so files compare bit for bit.
#include "mcprice/results.hpp"

#include <ostream>
#include <string>

namespace mcprice {

enum class output_format { csv, json };

void write_results_csv(std::ostream& out, const pricing_run& run);
// JSON: {"results": [...rows with the CSV's fields...], "summary": {...}}.
void write_results_json(std::ostream& out, const pricing_run& run);
void write_results(std::ostream& out, const pricing_run& run, output_format format);

std::string format_double(double v);  // shortest round-trip text
const char* status_name(trade_status s);  // the contract's status: ok, error, cancelled

}  // namespace mcprice
