// One engine, warm: a book priced at a given number of paths with Philox or Sobol points, the
// engine call timed after a first (untimed) call of the same work, so that module loading and
// the pools' first allocations are not what the figure measures. Prints the call's median time
// over three calls and the book's worst std_error / |price| (qmc_run.py searches the paths that
// reach a target error; docs/benchmarks.md).
//
// Usage: mcprice-qmc-bench PORTFOLIO MARKET pseudo|sobol PATHS [STEPS = 64] [CONTROL on|off]
#include "mcprice/engine.hpp"
#include "mcprice/market_reader.hpp"
#include "mcprice/portfolio_reader.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

int main(int argc, char** argv)
{
  using namespace mcprice;
  if (argc < 5) {
    std::fprintf(stderr, "usage: mcprice-qmc-bench PORTFOLIO MARKET pseudo|sobol PATHS [STEPS] [on|off]\n");
    return 1;
  }
  try {
    auto const book = read_portfolio_file(argv[1]);
    auto const market = read_market_file(argv[2]);
    engine_options o;
    o.backend = backend_choice::gpu;
    o.rng = std::string(argv[3]) == "sobol" ? rng_kind::sobol : rng_kind::pseudo;
    o.paths = std::atoll(argv[4]);
    o.steps = argc > 5 ? std::atoll(argv[5]) : 64;
    o.control_variates = argc > 6 ? std::string(argv[6]) != "off" : true;
    engine const e(market, o);
    double worst = 0.0;
    std::vector<double> seconds;
    for (int call = 0; call < 4; ++call) {
      auto const start = std::chrono::steady_clock::now();
      auto const run = e.price(book);
      double const s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (call > 0) seconds.push_back(s);
      worst = 0.0;
      for (auto const& r : run.results) {
        if (r.status != trade_status::ok) {
          std::fprintf(stderr, "mcprice-qmc-bench: %s: %s\n", r.id.c_str(), r.message.c_str());
          return 2;
        }
        worst = std::max(worst, r.std_error / std::abs(r.price));
      }
    }
    std::sort(seconds.begin(), seconds.end());
    std::printf("paths %lld worst_relative_se %.6e seconds %.6f\n", static_cast<long long>(o.paths), worst, seconds[1]);
  } catch (const std::exception& ex) {
    std::fprintf(stderr, "mcprice-qmc-bench: %s\n", ex.what());
    return 1;
  }
  return 0;
}
