// Run manifests and reruns: the manifest round trip, what a rerun reports for changed inputs,
// settings and results, bit-identical reruns across threads, and the golden results.
#include "catch.hpp"
#include "golden_runs.hpp"
#include "mcprice/engine.hpp"
#include "mcprice/market_reader.hpp"
#include "mcprice/portfolio_reader.hpp"
#include "mcprice/results_writer.hpp"
#include "rerun_report.hpp"
#include "run_manifest.hpp"
#include "sha256.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace mcprice;
using namespace mcprice::cli;
using namespace mcprice::testing;

namespace {

std::string read_text(const std::string& path)
{
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("SHA-256 matches the FIPS 180-2 test vectors")
{
  CHECK(sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST_CASE("the golden results are reproduced bit for bit by the CPU backend")
{
  auto const p = price_golden(golden_options());
  CHECK(p.text == read_text(data("golden/results_cpu.csv")));
}

TEST_CASE("a run manifest survives a round trip through JSON")
{
  engine_options o = golden_options();
  o.streams = 3;
  o.job_cap_bytes = 1 << 20;
  o.allocator = allocator_kind::pool;
  o.route = kernel_route::two_phase;
  o.graphs = graph_mode::on;
  auto const p = price_golden(o);
  run_manifest const m = manifest_of(p, o);
  run_manifest const back = manifest_from_json(nlohmann::json::parse(to_json(m).dump()), "round-trip");
  CHECK(to_json(back) == to_json(m));
  CHECK(back.portfolio.sha256 == sha256_of_file(data("golden/portfolio.csv")));
  CHECK(back.results.sha256 == sha256_hex(p.text));
  REQUIRE(back.trades.size() == p.run.results.size());
  for (std::size_t i = 0; i < back.trades.size(); ++i) {
    auto const& r = p.run.results[i];
    CHECK(back.trades[i].id == r.id);
    CHECK(back.trades[i].ok == (r.status == trade_status::ok));
    if (back.trades[i].ok) CHECK(double_of(back.trades[i].price_bits) == r.price);
  }
  CHECK(back.settings.streams == 3);
  CHECK(back.settings.allocator == allocator_kind::pool);
  CHECK(back.settings.route == kernel_route::two_phase);
  CHECK(back.settings.graphs == graph_mode::on);
  // A manifest written before graphs existed ran eagerly: its rerun does too.
  auto old = to_json(m);
  old["settings"].erase("graphs");
  CHECK(manifest_from_json(old, "before graphs").settings.graphs == graph_mode::off);
}

TEST_CASE("a rerun with other threads is bit-identical and says only execution settings changed")
{
  engine_options o = golden_options();
  o.threads = 1;
  auto const recorded = manifest_of(price_golden(o), o);
  o.threads = 2;
  o.streams = 2;
  o.job_cap_bytes = 1 << 20;
  auto const report = compare_runs(recorded, manifest_of(price_golden(o), o));
  CHECK(report.identical());
  CHECK(report.trades_compared == recorded.trades.size());
  CHECK(report.may_change_results.empty());
  CHECK(report.never_change_results.size() == 3);  // threads, streams, job cap
}

TEST_CASE("a rerun with a changed seed reports the setting and every trade that moved")
{
  engine_options o = golden_options();
  auto const recorded = manifest_of(price_golden(o), o);
  o.seed = 7;
  auto const report = compare_runs(recorded, manifest_of(price_golden(o), o));
  CHECK_FALSE(report.identical());
  REQUIRE(report.may_change_results.size() == 1);
  CHECK(report.may_change_results[0] == "setting seed 42 -> 7");
  std::size_t priced = 0;
  for (auto const& t : recorded.trades) priced += t.ok ? 1 : 0;
  CHECK(report.trades_differing.size() == priced);
  std::ostringstream text;
  print_rerun_report(text, report, "m.json");
  CHECK(text.str().find("changed, may change results: setting seed 42 -> 7") != std::string::npos);
}

TEST_CASE("a tampered input is detected by its digest")
{
  auto const dir = std::filesystem::temp_directory_path() / "mcprice-rerun-test";
  std::filesystem::create_directories(dir);
  auto const copy = (dir / "portfolio.csv").string();
  std::filesystem::copy_file(data("golden/portfolio.csv"), copy, std::filesystem::copy_options::overwrite_existing);
  engine_options const o = golden_options();
  auto const p = price_golden(o);
  run_manifest m = make_manifest(copy, data("golden/market.json"), "", output_format::csv, o, p.run, p.text);
  CHECK(changed_inputs(m).empty());
  {
    std::ofstream out(copy, std::ios::app);
    out << "# an edit\n";
  }
  auto const changes = changed_inputs(m);
  REQUIRE(changes.size() == 1);
  CHECK(changes[0].find(copy + ": sha256 " + m.portfolio.sha256 + " -> ") == 0);
  std::filesystem::remove_all(dir);
}

TEST_CASE("a malformed manifest is refused with the field it lacks")
{
  auto const p = price_golden(golden_options());
  auto j = to_json(manifest_of(p, golden_options()));
  j["settings"].erase("seed");
  CHECK_THROWS_WITH(manifest_from_json(j, "m.json"), "manifest m.json: /settings/seed is missing");
  CHECK_THROWS_WITH(manifest_from_json(nlohmann::json::object(), "m.json"),
                    "manifest m.json: not an mcprice run manifest");
  // Found by the manifest fuzzer: a number no int holds was converted (undefined behaviour).
  auto k = to_json(manifest_of(p, golden_options()));
  k["environment"]["runtime_version"] = 2.88e75;
  CHECK_THROWS_WITH(manifest_from_json(k, "m.json"),
                    "manifest m.json: /environment/runtime_version must be a whole number within range");
}

TEST_CASE("a rerun with Greeks compares every Greek's bits and names the one that moved")
{
  engine_options o = golden_options();
  o.greeks = true;
  o.paths = 2'000;  // the bits are compared, not the values: a short run exercises every Greek
  o.threads = 1;
  auto const recorded = manifest_of(price_golden(o), o);
  std::size_t with_greeks = 0;
  for (auto const& t : recorded.trades) with_greeks += t.greek_bits.empty() ? 0 : 1;
  CHECK(with_greeks > 0);
  run_manifest const back = manifest_from_json(nlohmann::json::parse(to_json(recorded).dump()), "round-trip");
  CHECK(to_json(back) == to_json(recorded));
  o.threads = 2;
  auto const rerun = manifest_of(price_golden(o), o);
  CHECK(compare_runs(recorded, rerun).identical());

  auto tampered = recorded;
  for (auto& t : tampered.trades) {
    if (t.greek_bits.empty()) continue;
    t.greek_bits[4] ^= 1;  // vega's last bit
    auto const report = compare_runs(tampered, rerun);
    REQUIRE(report.trades_differing.size() == 1);
    CHECK(report.trades_differing[0].find(t.id + ": price ") == 0);
    CHECK(report.trades_differing[0].find("; vega ") != std::string::npos);
    break;
  }
}
