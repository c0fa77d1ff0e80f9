// Budgets from recorded allocation profiles: the profile file's round trip, the suggested size
// classes, cap and limit with their reasons, and a settings file applied to engine options.
#include "catch.hpp"
#include "golden_runs.hpp"
#include "mcprice/input_error.hpp"
#include "memory_budget.hpp"
#include "output_file.hpp"

#include <filesystem>

using namespace mcprice;
using namespace mcprice::cli;

namespace {

// Many 100 KiB requests and a few of 3 MiB, from 40 jobs whose peaks rise 1..40 MiB.
allocation_profile synthetic()
{
  allocation_profile p;
  for (int i = 0; i < 200; ++i) {
    std::size_t const bytes = i % 10 == 0 ? std::size_t{3} << 20 : 100 * 1024;
    p.allocations.push_back({"job " + std::to_string(i % 40), 7, bytes, bytes, 0.001 * i, 0.001 * i + 0.01});
  }
  for (int j = 1; j <= 40; ++j) p.jobs.push_back({"job " + std::to_string(j), std::size_t(j) << 20});
  p.peak_bytes = std::size_t{100} << 20;
  return p;
}

std::string temp_file(const std::string& name)
{
  auto const dir = std::filesystem::temp_directory_path() / "mcprice-budget-test";
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

}  // namespace

TEST_CASE("an allocation profile survives a round trip through its file format")
{
  auto const p = synthetic();
  auto const back = profile_from_json(nlohmann::json::parse(profile_to_json(p, 0).dump()), "p.json");
  REQUIRE(back.allocations.size() == p.allocations.size());
  CHECK(back.allocations[10].bytes == p.allocations[10].bytes);
  CHECK(back.allocations[10].job == p.allocations[10].job);
  CHECK(back.allocations[10].freed_at == p.allocations[10].freed_at);
  CHECK(back.jobs.size() == 40);
  CHECK(back.peak_bytes == p.peak_bytes);
  auto broken = profile_to_json(p, 0);
  broken["allocations"][3][2] = -5;
  CHECK_THROWS_WITH(profile_from_json(broken, "b.json"),
                    "allocation profile b.json: /allocations/3/2 must be a whole number of bytes");
  CHECK_THROWS_WITH(profile_from_json(nlohmann::json::object(), "x.json"),
                    "allocation profile x.json: not an mcprice allocation profile");
}

TEST_CASE("the suggested classes are the fewest whose rounding stays within the stated share")
{
  std::vector<allocation_profile> const profiles{synthetic()};
  budget_rules const rules;
  auto const b = suggest_budget(profiles, rules);
  CHECK(b.class_min_bytes == 64 * 1024);           // the power of two at or below 100 KiB
  CHECK(b.class_max_bytes == std::size_t{4} << 20);  // at or above 3 MiB
  double const waste = rounding_waste(profiles, b.class_min_bytes, b.class_max_bytes, b.classes_per_doubling);
  CHECK(waste <= rules.most_rounding);
  if (b.classes_per_doubling > 1) {
    CHECK(rounding_waste(profiles, b.class_min_bytes, b.class_max_bytes, b.classes_per_doubling / 2) >
          rules.most_rounding);
  }
  // The cap: the 99th percentile of 40 peaks (40 MiB by nearest rank) x 1.25; the limit: 100 MiB x 1.25.
  CHECK(b.job_cap_bytes == std::size_t{50} << 20);
  CHECK(b.pool_limit_bytes == std::size_t{125} << 20);
  REQUIRE(b.reasons.size() == 3);
  CHECK(b.reasons[1].find("job cap 50 MiB") == 0);
  CHECK(b.reasons[2].find("pool limit 125 MiB") == 0);
  CHECK_THROWS_AS(suggest_budget({allocation_profile{}}), configuration_error);

  // Ten 1 KiB requests beside a hundred of 1 MiB: rounding them up to 64 KiB adds 0.6% to the
  // bytes asked, to 128 KiB 1.2%: the smallest class is 64 KiB, one block size for them all.
  allocation_profile small;
  for (int i = 0; i < 110; ++i) {
    std::size_t const bytes = i < 10 ? 1024 : std::size_t{1} << 20;
    small.allocations.push_back({"job", 1, bytes, bytes, 0.0, 1.0});
  }
  small.peak_bytes = std::size_t{100} << 20;
  CHECK(suggest_budget({small}).class_min_bytes == 64 * 1024);
}

TEST_CASE("a settings file sets the classes, the cap and the limit, unless the command line gave them")
{
  auto const b = suggest_budget({synthetic()});
  std::string const path = temp_file("settings.json");
  write_file_atomically(path, settings_to_json(b).dump(2));
  engine_options o;
  apply_memory_settings(path, o, false, false);
  CHECK(o.size_class_min_bytes == b.class_min_bytes);
  CHECK(o.size_class_max_bytes == b.class_max_bytes);
  CHECK(o.size_classes_per_doubling == b.classes_per_doubling);
  CHECK(o.job_cap_bytes == b.job_cap_bytes);
  CHECK(o.pool_limit_bytes == b.pool_limit_bytes);
  engine_options given;
  given.job_cap_bytes = 7;
  given.pool_limit_bytes = 9;
  apply_memory_settings(path, given, true, true);
  CHECK(given.job_cap_bytes == 7);
  CHECK(given.pool_limit_bytes == 9);
  // The engine takes them (the classes apply on the GPU; on the CPU they are checked only).
  o.backend = backend_choice::cpu;
  CHECK_NOTHROW(engine(read_market_file(testing::data("sample_market.json")), o));
  o.size_class_min_bytes = 100;
  CHECK_THROWS_AS(engine(read_market_file(testing::data("sample_market.json")), o), configuration_error);
  write_file_atomically(path, R"({"mcprice_memory_settings": 1, "size_classes": {"per_doubling": 100}})");
  CHECK_THROWS_WITH(apply_memory_settings(path, o, false, false),
                    "memory settings " + path + ": /size_classes/per_doubling must be in [1, 64]");
}
