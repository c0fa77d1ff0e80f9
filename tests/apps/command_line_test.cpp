#include "command_line.hpp"
#include "catch.hpp"
#include "mcprice/input_error.hpp"
#include "quantity.hpp"

#include <vector>

using namespace mcprice;
using namespace mcprice::cli;

namespace {
command_line parse(std::vector<const char*> args)
{
  args.insert(args.begin(), "price-batch");
  return parse_command_line(static_cast<int>(args.size()), args.data());
}
}  // namespace

TEST_CASE("counts and sizes accept the contract's spellings")
{
  CHECK(cli::parse_count("1e6", "--paths") == 1000000);
  CHECK(cli::parse_count("262144", "--paths") == 262144);
  CHECK_THROWS_AS(cli::parse_count("1.5", "--paths"), configuration_error);
  CHECK_THROWS_AS(cli::parse_count("-3", "--paths"), configuration_error);
  CHECK_THROWS_AS(cli::parse_count("12abc", "--paths"), configuration_error);
  CHECK(parse_bytes("256MiB", "--job-cap") == 268435456ULL);
  CHECK(parse_bytes("2GiB", "--job-cap") == 2147483648ULL);
  CHECK(parse_bytes("1.5GB", "--job-cap") == 1500000000ULL);
  CHECK(parse_bytes("4096", "--job-cap") == 4096ULL);
  CHECK_THROWS_AS(parse_bytes("12 parsecs", "--job-cap"), configuration_error);
}

TEST_CASE("the command line maps onto engine options")
{
  auto const cl = parse({"book.csv", "--market", "m.json", "--paths", "1e5", "--seed", "7", "--backend", "cpu",
                         "--threads", "3", "--job-cap", "64MiB", "--out", "r.json"});
  CHECK(cl.portfolio == "book.csv");
  CHECK(cl.market == "m.json");
  CHECK(cl.engine.paths == 100000);
  CHECK(cl.engine.seed == 7);
  CHECK(cl.engine.backend == backend_choice::cpu);
  CHECK(cl.engine.threads == 3);
  CHECK(cl.engine.job_cap_bytes == 64ULL << 20);
  CHECK(cl.format == output_format::json);
  CHECK(cl.engine.antithetic);
  CHECK(cl.engine.control_variates);
  CHECK_FALSE(parse({"b.csv", "--control-variates", "off"}).engine.control_variates);
  CHECK(cl.engine.allocator == allocator_kind::bucketed);
  auto const mem = parse({"b.csv", "--allocator", "async-default", "--pool-limit", "2GiB", "--memory-report"});
  CHECK(mem.engine.allocator == allocator_kind::async_default);
  CHECK(mem.engine.pool_limit_bytes == 2147483648ULL);
  CHECK(mem.memory_report);
  CHECK_THROWS_AS(parse({"b.csv", "--allocator", "tcmalloc"}), configuration_error);
  CHECK(parse({"b.csv", "--route", "two-phase"}).engine.route == kernel_route::two_phase);
  CHECK_THROWS_AS(parse({"b.csv", "--route", "scenic"}), configuration_error);
  CHECK(parse({"b.csv"}).engine.graphs == graph_mode::automatic);
  CHECK(parse({"b.csv", "--graphs", "on"}).engine.graphs == graph_mode::on);
  CHECK(parse({"b.csv", "--graphs", "off"}).engine.graphs == graph_mode::off);
  CHECK_THROWS_AS(parse({"b.csv", "--graphs", "sometimes"}), configuration_error);
  CHECK_FALSE(parse({"b.csv", "--antithetic", "off"}).engine.antithetic);
  CHECK_THROWS_AS(parse({"b.csv", "--antithetic", "maybe"}), configuration_error);
  CHECK(parse({"--portfolio", "b.csv", "--format", "csv", "--out", "x.json"}).format == output_format::csv);
}

TEST_CASE("bad command lines are configuration errors")
{
  CHECK_THROWS_AS(parse({}), configuration_error);
  CHECK_THROWS_AS(parse({"a.csv", "b.csv"}), configuration_error);
  CHECK_THROWS_AS(parse({"a.csv", "--backend", "tpu"}), configuration_error);
  CHECK_THROWS_AS(parse({"a.csv", "--pathz", "3"}), configuration_error);
  CHECK_THROWS_AS(parse({"a.csv", "--format", "xml"}), configuration_error);
  // Found by fuzzing: Boost's error formatting looped forever on an option holding its placeholder.
  CHECK_THROWS_WITH(parse({"N5boo", "--stre%original_token%rqmc-r--streams", "8"}),
                    "argument 2 (--stre%original_token%rqmc-r--streams) holds %original_token%, which price-batch "
                    "does not accept");
  CHECK_THROWS_AS(parse({"b.csv", "--x%canonical_option%"}), configuration_error);
  CHECK(parse({"b.csv", "--pool-limit", "8GiB", "--out", "100%.csv"}).out == "100%.csv");
  CHECK(parse({"--help"}).show_help);
  CHECK(help_text().find("Examples:") != std::string::npos);
}

TEST_CASE("a pool limit is bytes, or with --load-test shares of the stream's peak")
{
  CHECK(parse({"book.csv", "--pool-limit", "8GiB"}).engine.pool_limit_bytes == 8ULL << 30);
  auto const cl = parse({"--load-test", "--pool-limit", "80%,90%,95%", "--load-html", "r.html"});
  CHECK(cl.load_pressures == std::vector<double>{0.8, 0.9, 0.95});
  CHECK(cl.engine.pool_limit_bytes == 0);
  CHECK(cl.load_html == "r.html");
  CHECK_THROWS_AS(parse({"book.csv", "--pool-limit", "90%"}), configuration_error);
  CHECK_THROWS_AS(parse({"--load-test", "--pool-limit", "0%"}), configuration_error);
  CHECK_THROWS_AS(parse({"book.csv", "--load-html", "r.html"}), configuration_error);
}

TEST_CASE("--devices names several GPUs, or all of them")
{
  CHECK(parse({"book.csv", "--devices", "all"}).engine.every_device);
  auto const two = parse({"book.csv", "--devices", "0,1"}).engine;
  CHECK(two.devices == std::vector<int>{0, 1});
  CHECK_FALSE(two.every_device);
  CHECK(parse({"book.csv", "--devices", "3"}).engine.devices == std::vector<int>{3});
  CHECK_THROWS_AS(parse({"book.csv", "--devices", "0,,1"}), configuration_error);
  CHECK_THROWS_AS(parse({"book.csv", "--devices", "0,x"}), configuration_error);
  CHECK_THROWS_AS(parse({"book.csv", "--devices", ""}), configuration_error);
  CHECK_THROWS_AS(parse({"book.csv", "--device", "0", "--devices", "1"}), configuration_error);
}

TEST_CASE("--load-find-max takes a p99 objective above zero; a pool limit of zero is refused")
{
  auto const cl = parse({"--load-test", "--load-find-max", "--load-slo", "20"});
  CHECK(cl.load_find_max);
  CHECK(cl.load_slo_ms == 20.0);
  CHECK(parse({"--load-test", "--load-find-max"}).load_slo_ms == 50.0);
  CHECK_THROWS_AS(parse({"--load-test", "--load-find-max", "--load-slo", "-5"}), configuration_error);
  CHECK_THROWS_AS(parse({"--load-test", "--load-find-max", "--load-slo", "0"}), configuration_error);
  CHECK_THROWS_AS(parse({"--load-test", "--load-find-max", "--load-slo", "fast"}), configuration_error);
  CHECK_THROWS_AS(parse({"--load-test", "--load-slo", "20"}), configuration_error);  // without --load-find-max
  CHECK_THROWS_AS(parse({"book.csv", "--load-find-max"}), configuration_error);      // without --load-test
  CHECK_THROWS_AS(parse({"book.csv", "--pool-limit", "0"}), configuration_error);
  CHECK_THROWS_AS(parse({"book.csv", "--pool-limit", "0GiB"}), configuration_error);
  CHECK(parse({"--load-test", "--load-find-max"}).load_step_seconds == 2.0);
  CHECK(parse({"--load-test", "--load-find-max", "--load-step-seconds", "0.5"}).load_step_seconds == 0.5);
  CHECK_THROWS_AS(parse({"--load-test", "--load-find-max", "--load-step-seconds", "0"}), configuration_error);
  CHECK_THROWS_AS(parse({"--load-test", "--load-step-seconds", "3"}), configuration_error);
}

TEST_CASE("--validate-against takes a tolerance, a latency slack and a JSON report")
{
  auto const cl = parse({"--validate-against", "base.json", "--tolerance", "3.5", "--latency-slack", "20%",
                         "--validate-json", "v.json", "--seed", "9", "--allow-input-change"});
  CHECK(cl.validate_against == "base.json");
  CHECK(cl.tolerance == 3.5);
  CHECK(cl.latency_slack == Approx(0.2));
  CHECK(cl.validate_json == "v.json");
  CHECK(cl.engine.seed == 9);
  CHECK(cl.allow_input_change);
  CHECK(cl.portfolio.empty());
  auto const defaults = parse({"--validate-against", "base.json"});
  CHECK(defaults.tolerance == 4.0);
  CHECK(defaults.latency_slack == Approx(0.1));
  CHECK(parse({"--validate-against", "b.json", "--latency-slack", "0.25"}).latency_slack == Approx(0.25));
  CHECK(parse({"--validate-against", "b.json", "--latency-slack", "0%"}).latency_slack == 0.0);
  CHECK_THROWS_AS(parse({"--validate-against", "b.json", "--tolerance", "0"}), configuration_error);
  CHECK_THROWS_AS(parse({"--validate-against", "b.json", "--tolerance", "-1"}), configuration_error);
  CHECK_THROWS_AS(parse({"--validate-against", "b.json", "--latency-slack", "-5%"}), configuration_error);
  CHECK_THROWS_AS(parse({"--validate-against", "b.json", "--latency-slack", "10 percent"}), configuration_error);
  CHECK_THROWS_AS(parse({"--validate-against", "b.json", "book.csv"}), configuration_error);
  CHECK_THROWS_AS(parse({"--validate-against", "b.json", "--rerun", "b.json"}), configuration_error);
  CHECK_THROWS_AS(parse({"book.csv", "--tolerance", "3"}), configuration_error);
  CHECK_THROWS_AS(parse({"book.csv", "--validate-json", "v.json"}), configuration_error);
  CHECK_THROWS_AS(parse({"book.csv", "--allow-input-change"}), configuration_error);
}
