// price-batch: the contract's command-line pricer.
#include "command_line.hpp"
#include "mcprice/engine.hpp"
#include "mcprice/input_error.hpp"
#include "mcprice/market_reader.hpp"
#include "mcprice/memory/cuda_error.hpp"
#include "mcprice/portfolio_reader.hpp"
#include "mcprice/results_writer.hpp"
#include "mcprice/version.hpp"
#include "output_file.hpp"

#include <cstdio>
#include <iostream>
#include <sstream>
#include <unistd.h>

namespace {

constexpr int exit_all_priced = 0;
constexpr int exit_nothing_priced = 1;
constexpr int exit_some_failed = 2;

void print_summary(const mcprice::run_summary& s)
{
  std::fprintf(stderr, "price-batch: %zu trades (%zu ok, %zu failed), %.4g paths, %.3f s, backend %s (%s)",
               s.trades, s.trades - s.failed, s.failed, static_cast<double>(s.paths), s.wall_seconds,
               s.backend == mcprice::backend_kind::gpu ? "gpu" : "cpu", s.device_name.c_str());
  std::fprintf(stderr, "\n");
}

int run(int argc, const char* const argv[])
{
  auto const cl = mcprice::cli::parse_command_line(argc, argv);
  if (cl.show_help) {
    std::cout << mcprice::cli::help_text();
    return exit_all_priced;
  }
  if (cl.show_version) {
    std::cout << "price-batch (mcprice) " << mcprice::version << " (commit " << mcprice::git_commit << ")\n";
    return exit_all_priced;
  }
  if (cl.greeks) {
    throw mcprice::configuration_error("--greeks: Greeks are not available in this release yet");
  }

  auto market = mcprice::read_market_file(cl.market);
  auto const book = mcprice::read_portfolio_file(cl.portfolio);
  mcprice::engine const engine(std::move(market), cl.engine);
  for (auto const& notice : engine.notices()) std::fprintf(stderr, "price-batch: %s\n", notice.c_str());

  bool const show_progress = !cl.quiet && ::isatty(STDERR_FILENO) == 1;
  auto progress = [](std::int64_t done, std::int64_t total) {
    std::fprintf(stderr, "\rpricing: %5.1f%% of %.4g paths", 100.0 * static_cast<double>(done) / static_cast<double>(total),
                 static_cast<double>(total));
    std::fflush(stderr);
  };
  auto const result = engine.price(book, show_progress ? mcprice::progress_callback(progress) : nullptr);
  if (show_progress) std::fprintf(stderr, "\n");

  std::ostringstream text;
  mcprice::write_results(text, result, cl.format);
  if (cl.out.empty()) std::cout << text.str() << std::flush;
  else mcprice::cli::write_file_atomically(cl.out, text.str());

  if (!cl.quiet) print_summary(result.summary);
  if (cl.memory_report) {
    if (auto const report = engine.memory()) {
      std::ostringstream r;
      mcprice::print_report(r, *report);
      std::fputs(r.str().c_str(), stderr);
    } else {
      std::fputs("price-batch: --memory-report: the CPU backend uses no GPU memory\n", stderr);
    }
  }
  return result.summary.failed > 0 ? exit_some_failed : exit_all_priced;
}

}  // namespace

int main(int argc, char** argv)
{
  try {
    return run(argc, argv);
  } catch (const mcprice::input_error& e) {
    std::fprintf(stderr, "price-batch: error: %s\n", e.what());
  } catch (const mcprice::configuration_error& e) {
    std::fprintf(stderr, "price-batch: error: %s\n", e.what());
  } catch (const mcprice::cuda_error& e) {
    std::fprintf(stderr, "price-batch: GPU error: %s\n", e.what());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "price-batch: error: %s\n", e.what());
  }
  return exit_nothing_priced;
}
