#pragma once
// The golden book (data/golden) priced on the CPU backend, and its run manifest: what the rerun
// and upgrade-validation tests start from.
#include "mcprice/engine.hpp"
#include "mcprice/market_reader.hpp"
#include "mcprice/portfolio_reader.hpp"
#include "mcprice/results_writer.hpp"
#include "run_manifest.hpp"

#include <sstream>
#include <string>
#include <utility>

namespace mcprice::testing {

inline std::string data(const std::string& name) { return std::string(MCPRICE_DATA_DIR) + "/" + name; }

struct priced {
  pricing_run run;
  std::string text;  // the results as CSV
};

inline priced price_golden(const engine_options& o)
{
  auto market = read_market_file(data("golden/market.json"));
  auto const book = read_portfolio_file(data("golden/portfolio.csv"));
  priced p{engine(std::move(market), o).price(book), {}};
  std::ostringstream out;
  write_results(out, p.run, output_format::csv);
  p.text = out.str();
  return p;
}

inline engine_options golden_options()
{
  engine_options o;
  o.backend = backend_choice::cpu;
  o.paths = 20'000;
  o.seed = 42;
  return o;
}

inline cli::run_manifest manifest_of(const priced& p, const engine_options& o)
{
  return cli::make_manifest(data("golden/portfolio.csv"), data("golden/market.json"), "", output_format::csv, o,
                            p.run, p.text);
}

}  // namespace mcprice::testing
