// Prices a portfolio through the installed library, on the CPU so it runs anywhere.
#include <mcprice/engine.hpp>
#include <mcprice/market_reader.hpp>
#include <mcprice/portfolio_reader.hpp>
#include <mcprice/version.hpp>

#include <cstdio>

int main(int argc, char** argv)
{
  if (argc != 3) {
    std::fprintf(stderr, "usage: consumer MARKET.json PORTFOLIO.csv\n");
    return 1;
  }
  mcprice::engine_options options;
  options.backend = mcprice::backend_choice::cpu;
  options.paths = 10000;
  mcprice::engine const engine(mcprice::read_market_file(argv[1]), options);
  auto const run = engine.price(mcprice::read_portfolio_file(argv[2]));
  for (auto const& r : run.results) {
    std::printf("%s %s %.6f\n", r.id.c_str(), r.status == mcprice::trade_status::ok ? "ok" : "error", r.price);
  }
  std::printf("mcprice %s: %zu trades\n", mcprice::version, run.summary.trades);
  return 0;
}
