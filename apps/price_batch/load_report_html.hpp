#pragma once
// The load test's report as one self-contained HTML file (inline SVG and CSS, no script, nothing
// fetched): memory over time per strategy, the job-latency histogram, fragmentation over time,
// and the summary table. Made from the JSON report, so a saved JSON renders the same page.
#include <nlohmann/json.hpp>

#include <string>

namespace mcprice::cli {

std::string load_report_html(const nlohmann::json& report);

}  // namespace mcprice::cli
