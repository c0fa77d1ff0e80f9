// An engine loads at construction only the kernels of its generator and precision
// (kernel_selection.hpp); a kernel it left out would load at its first launch, beside running
// kernels, which is what preloading exists to avoid (docs/reliability.md). Each engine is made
// in a process of its own (this binary, run for a hidden case), so that no earlier test's loads
// hide a kernel its requests load late.
#include "catch.hpp"
#include "mcprice/engine.hpp"
#include "mcprice/kernels/launch/kernel_modules.hpp"
#include "mcprice/kernels/launch/kernel_selection.hpp"
#include "mcprice/market_reader.hpp"
#include "mcprice/portfolio_reader.hpp"

#include <spawn.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

extern char** environ;

using namespace mcprice;

namespace {

std::string data_file(const std::string& name)
{
  std::string const built = std::string(MCPRICE_DATA_DIR) + "/" + name;
  return std::ifstream(built).good() ? built : "data/" + name;
}

constexpr unsigned every_group = kernels::kernel_group::prices | kernels::kernel_group::greeks |
                                 kernels::kernel_group::two_phase | kernels::kernel_group::exercise |
                                 kernels::kernel_group::reductions;

// Runs this binary's hidden case for one engine setting; its exit status.
int run_child(const std::string& setting)
{
  std::string const variable = "MCPRICE_SELECTION_CHILD=" + setting;
  std::vector<char*> env;
  for (char** e = environ; *e != nullptr; ++e) env.push_back(*e);
  env.push_back(const_cast<char*>(variable.c_str()));
  env.push_back(nullptr);
  char exe[] = "/proc/self/exe";
  char tag[] = "[.kernel-selection-child]";
  char* argv[] = {exe, tag, nullptr};
  pid_t pid = 0;
  if (posix_spawn(&pid, exe, nullptr, nullptr, argv, env.data()) != 0) return -1;
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

TEST_CASE("an engine's requests load no kernel that its construction left out", "[gpu]")
{
  for (std::string const setting : {"pseudo float", "sobol float", "pseudo double", "pseudo float two-phase"}) {
    INFO("engine: " << setting << " (the child's output above names what it loaded late)");
    CHECK(run_child(setting) == 0);
  }
}

TEST_CASE("kernel selection child: one engine, the sample book (with Greeks where it can)", "[.kernel-selection-child]")
{
  const char* setting = std::getenv("MCPRICE_SELECTION_CHILD");
  REQUIRE(setting != nullptr);
  std::string const s = setting;
  engine_options o;
  o.backend = backend_choice::gpu;
  o.paths = 4096;
  // The GPU's Greeks are float and come from the fused route.
  o.greeks = s.find("double") == std::string::npos && s.find("two-phase") == std::string::npos;
  if (s.find("sobol") != std::string::npos) o.rng = rng_kind::sobol;
  if (s.find("double") != std::string::npos) o.precision = path_precision::float64;
  if (s.find("two-phase") != std::string::npos) o.route = kernel_route::two_phase;
  engine const e(read_market_file(data_file("sample_market.json")), o);
  auto before = kernels::loaded_kernels(every_group);
  if (before.empty()) {
    WARN("the driver cannot say which kernels are loaded (before CUDA 12.4): nothing checked");
    return;
  }
  pricing_run const run = e.price(read_portfolio_file(data_file("sample_portfolio.csv")));
  REQUIRE_FALSE(run.results.empty());
  auto after = kernels::loaded_kernels(every_group);
  std::sort(before.begin(), before.end());
  std::sort(after.begin(), after.end());
  std::vector<std::string> late;
  std::set_difference(after.begin(), after.end(), before.begin(), before.end(), std::back_inserter(late));
  for (auto const& name : late) UNSCOPED_INFO("loaded at its first launch: " << name);
  CHECK(late.empty());
}
