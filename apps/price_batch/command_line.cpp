#include "command_line.hpp"

#include "mcprice/input_error.hpp"
#include "quantity.hpp"

#include <boost/program_options.hpp>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <filesystem>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace po = boost::program_options;

namespace mcprice::cli {
namespace {

po::options_description visible_options()
{
  po::options_description o("Options");
  o.add_options()("portfolio", po::value<std::string>(), "portfolio CSV (or give it as the first argument)")(
      "market", po::value<std::string>(), "market JSON (default: the sample market in data/)")(
      "out", po::value<std::string>(), "results file (default: standard output)")(
      "format", po::value<std::string>(), "csv | json (default: from --out's extension, else csv)")(
      "paths", po::value<std::string>(), "paths per trade unless the row says (default 1e6)")(
      "steps", po::value<std::string>(), "time steps for path-dependent products (default 252)")(
      "calibration-paths", po::value<std::string>(),
      "american/bermudan: paths of the exercise-policy regression, on their own random stream "
      "(default: the trade's paths, up to 131072)")("seed", po::value<std::string>(), "run seed (default 42)")(
      "rng", po::value<std::string>(),
      "pseudo | sobol: Philox numbers, or Owen-scrambled Sobol points with a Brownian bridge (default pseudo)")(
      "rqmc-replicates", po::value<std::string>(),
      "--rng sobol: independent scramblings; std_error from their spread (default 32)")(
      "antithetic", po::value<std::string>(), "on | off: price Z and -Z paths as pairs (default on)")(
      "control-variates", po::value<std::string>(), "on | off: geometric control for arithmetic Asians (default on)")(
      "backend", po::value<std::string>()->default_value("auto"), "auto | gpu | cpu")(
      "threads", po::value<std::string>(), "CPU backend threads (default: all cores)")(
      "device", po::value<std::string>(), "GPU ordinal (default 0)")(
      "devices", po::value<std::string>(),
      "several GPUs in one process: all | 0,1,... (the book split across them by estimated cost; same "
      "results as one GPU). Under mpirun: the GPUs a node's ranks take in turn (default: all)")(
      "streams", po::value<std::string>(), "GPU streams (default: chosen from the device)")(
      "job-cap", po::value<std::string>(), "scratch bytes one job may hold, e.g. 256MiB (default: no cap)")(
      "allocator", po::value<std::string>(), "GPU scratch: bucketed (default) | pool | async-default | malloc")(
      "pool-limit", po::value<std::string>(),
      "most scratch bytes held from the GPU, e.g. 8GiB (default: no limit); jobs wait for room under it. "
      "With --load-test also shares of the stream's peak live bytes, e.g. 80%,90%,95%: one pressure run each")(
      "memory-report", "print the GPU memory statistics to stderr after pricing")(
      "memory-profile", po::value<std::string>(),
      "record every GPU scratch allocation of the run (size, class, lifetime, stream, job) and each job's peak "
      "into FILE, for --suggest-budget")(
      "suggest-budget", po::value<std::vector<std::string>>()->multitoken(),
      "instead of pricing: read allocation profiles and suggest size classes, a job cap and a pool limit, with "
      "their reasons; --out FILE also writes them as a --memory-settings file")(
      "memory-settings", po::value<std::string>(),
      "scratch size classes, job cap and pool limit from FILE (--suggest-budget's); --job-cap and --pool-limit "
      "given here win")("route", po::value<std::string>(),
                        "GPU kernels: auto | fused | two-phase (same results; for checks)")(
      "graphs", po::value<std::string>(),
      "GPU requests as captured CUDA graphs, replayed per shape: auto | on | off (same results; auto is off "
      "for now)")(
      "batch-window-us", po::value<std::string>(),
      "batching across callers (the load test's submitters, a linked library's threads): a call that arrives "
      "while another is priced waits up to N us for more, and they are priced as one book, each with its own "
      "rows and bits (default 0: never)")("grid-blocks", po::value<std::string>(),
                                          "GPU grid size override; never changes results")(
      "manifest", po::value<std::string>(),
      "also write a run manifest (input and result digests, settings, engine, device, host) to FILE")(
      "rerun", po::value<std::string>(),
      "rerun the run a manifest describes and compare its results bit for bit (exit 3: they differ; 4: inputs "
      "changed)")("allow-input-change", "with --rerun or --validate-against: run even if an input's digest changed")(
      "validate-against", po::value<std::string>(),
      "reprice a certified baseline's manifest under this build and machine and compare every price and Greek "
      "within --tolerance standard errors and the run's time within --latency-slack (exit 3: numbers "
      "differ; 5: slower only; 4: inputs changed)")("tolerance", po::value<std::string>(),
                                                    "with --validate-against: k in |new - old| <= k sqrt(se_old^2 + "
                                                    "se_new^2) (default 4)")(
      "latency-slack", po::value<std::string>(),
      "with --validate-against: how much slower a phase may be, e.g. 10% or 0.1 (default 10%)")(
      "validate-json", po::value<std::string>(), "with --validate-against: also write the report as JSON to FILE")(
      "greeks",
      "also compute delta, gamma, vega, theta, rho in the same pass (every product; per asset for "
      "multi-asset trades of up to 8 assets); JSON adds each Greek's std error")(
      "precision", po::value<std::string>(),
      "path arithmetic: float (default; double accumulation) | double (early exercise and Greeks: CPU backend)")(
      "load-test",
      "instead of a portfolio: push a seeded stream of synthetic pricing jobs through the engine "
      "once per allocator and report throughput, latency and memory (docs/load_test.md)")(
      "load-jobs", po::value<std::string>(), "load test: jobs in the stream (default 5000)")(
      "load-seed", po::value<std::string>(), "load test: the stream's seed (default 7)")(
      "load-pattern", po::value<std::string>(), "load test: steady | bursts (default) | ramp")(
      "load-rate", po::value<std::string>(), "load test: mean arrivals per second (default 2000)")(
      "load-mix", po::value<std::string>(),
      "load test: size classes name:weight:trades:paths,... (default small:0.85:2:16384,medium:0.13:8:65536,"
      "large:0.02:4:1048576)")("load-threads", po::value<std::string>(),
                               "load test: submitting host threads (default 4)")(
      "allocators", po::value<std::string>(), "load test: malloc,async-default,pool,bucketed or all (default all)")(
      "load-json", po::value<std::string>(), "load test: also write the report as JSON to FILE")(
      "load-html", po::value<std::string>(),
      "load test: also write a self-contained HTML report with plots (memory, latency, fragmentation) to FILE")(
      "load-find-max",
      "load test: raise the offered rate from --load-rate until the p99 job latency breaks --load-slo; report, "
      "per allocator, the highest sustainable jobs/s and paths/s, GPU busy share, latency and footprint")(
      "load-slo", po::value<std::string>(),
      "load test with --load-find-max: the p99 job latency objective, ms "
      "(default 50)")("load-step-seconds", po::value<std::string>(),
                      "load test with --load-find-max: each step offers at least this many seconds of arrivals, "
                      "more jobs than --load-jobs where needed (default 2)")(
      "load-from", po::value<std::string>(),
      "load test: instead of running, render --load-html from a report saved with --load-json")(
      "quiet,q", "no progress or summary on stderr")("help,h", "this help")("version", "engine version and commit");
  return o;
}

allocator_kind parse_allocator(const std::string& s)
{
  if (s == "bucketed") return allocator_kind::bucketed;
  if (s == "pool") return allocator_kind::pool;
  if (s == "async-default") return allocator_kind::async_default;
  if (s == "malloc") return allocator_kind::malloc;
  throw configuration_error("--allocator " + s + ": expected bucketed, pool, async-default or malloc");
}

backend_choice parse_backend(const std::string& s)
{
  if (s == "auto") return backend_choice::automatic;
  if (s == "gpu") return backend_choice::gpu;
  if (s == "cpu") return backend_choice::cpu;
  throw configuration_error("--backend " + s + ": expected auto, gpu or cpu");
}

// "80%,90%,95%": shares in (0, 100], as fractions.
std::vector<double> parse_percentages(const std::string& text, const char* option)
{
  std::vector<double> out;
  std::stringstream list(text);
  std::string item;
  while (std::getline(list, item, ',')) {
    std::size_t used = 0;
    double v = 0.0;
    try {
      v = std::stod(item, &used);
    } catch (const std::logic_error&) {
      used = 0;
    }
    if (used == 0 || item.substr(used) != "%" || !(v > 0.0 && v <= 100.0)) {
      throw configuration_error(std::string(option) + " " + text + ": '" + item + "' is not a percentage in (0, 100]");
    }
    out.push_back(v / 100.0);
  }
  return out;
}

// The load test's options; given without --load-test they are an error (they would do nothing).
void parse_load_test(const po::variables_map& vm, command_line& cl)
{
  auto const get = [&](const char* k) { return vm[k].as<std::string>(); };
  if (!cl.load_test) {
    for (const char* k : {"load-jobs", "load-seed", "load-pattern", "load-rate", "load-mix", "load-threads",
                          "allocators", "load-json", "load-html", "load-from", "load-find-max", "load-slo",
                          "load-step-seconds"}) {
      if (vm.count(k)) throw configuration_error(std::string("--") + k + " goes with --load-test");
    }
    if (!cl.load_pressures.empty()) {
      throw configuration_error(
          "--pool-limit as a percentage goes with --load-test (a share of the load stream's "
          "peak live bytes); give bytes otherwise, e.g. 8GiB");
    }
    return;
  }
  try {
    if (vm.count("load-pattern")) cl.load.pattern = load::parse_pattern(get("load-pattern"));
    if (vm.count("load-mix")) cl.load.mix = load::parse_mix(get("load-mix"));
  } catch (const std::invalid_argument& e) {
    throw configuration_error(e.what());
  }
  if (vm.count("load-jobs")) cl.load.jobs = static_cast<std::size_t>(parse_count(get("load-jobs"), "--load-jobs"));
  if (vm.count("load-seed")) cl.load.seed = static_cast<std::uint64_t>(parse_count(get("load-seed"), "--load-seed"));
  if (vm.count("load-rate")) cl.load.rate = static_cast<double>(parse_count(get("load-rate"), "--load-rate"));
  if (vm.count("load-threads")) cl.load_threads = static_cast<int>(parse_count(get("load-threads"), "--load-threads"));
  cl.allocators = {allocator_kind::malloc, allocator_kind::async_default, allocator_kind::pool,
                   allocator_kind::bucketed};
  if (vm.count("allocators") && get("allocators") != "all") {
    cl.allocators.clear();
    std::stringstream list(get("allocators"));
    std::string name;
    while (std::getline(list, name, ',')) cl.allocators.push_back(parse_allocator(name));
  }
  cl.load_find_max = vm.count("load-find-max") > 0;
  if (vm.count("load-slo")) {
    if (!cl.load_find_max) throw configuration_error("--load-slo goes with --load-find-max");
    cl.load_slo_ms = parse_positive(get("load-slo"), "--load-slo");
  }
  if (vm.count("load-step-seconds")) {
    if (!cl.load_find_max) throw configuration_error("--load-step-seconds goes with --load-find-max");
    cl.load_step_seconds = parse_positive(get("load-step-seconds"), "--load-step-seconds");
  }
  if (vm.count("load-json")) cl.load_json = get("load-json");
  if (vm.count("load-html")) cl.load_html = get("load-html");
  if (vm.count("load-from")) {
    cl.load_from = get("load-from");
    if (cl.load_html.empty()) throw configuration_error("--load-from renders a report: give --load-html FILE too");
  }
}

// "10%" or "0.1": a share of at least 0.
double parse_slack(const std::string& text)
{
  std::size_t used = 0;
  double v = -1.0;
  try {
    v = std::stod(text, &used);
  } catch (const std::logic_error&) {
    used = 0;
  }
  std::string const rest = used == 0 ? text : text.substr(used);
  if (used == 0 || (!rest.empty() && rest != "%") || !(v >= 0.0) || !std::isfinite(v)) {
    throw configuration_error("--latency-slack " + text + ": expected a share of 0 or more, e.g. 10% or 0.1");
  }
  return rest == "%" ? v / 100.0 : v;
}

// --validate-against's options; given without it they are an error (they would do nothing).
void parse_validation(const po::variables_map& vm, command_line& cl)
{
  auto const get = [&](const char* k) { return vm[k].as<std::string>(); };
  if (cl.validate_against.empty()) {
    for (const char* k : {"tolerance", "latency-slack", "validate-json"}) {
      if (vm.count(k)) throw configuration_error(std::string("--") + k + " goes with --validate-against");
    }
    return;
  }
  if (vm.count("tolerance")) cl.tolerance = parse_positive(get("tolerance"), "--tolerance");
  if (vm.count("latency-slack")) cl.latency_slack = parse_slack(get("latency-slack"));
  if (vm.count("validate-json")) cl.validate_json = get("validate-json");
}

// --memory-profile, --suggest-budget, --memory-settings.
void parse_budget(const po::variables_map& vm, command_line& cl)
{
  if (vm.count("suggest-budget")) {
    cl.suggest_budget = vm["suggest-budget"].as<std::vector<std::string>>();
    if (vm.count("positional") || vm.count("portfolio") || cl.load_test || !cl.rerun.empty() ||
        !cl.validate_against.empty()) {
      throw configuration_error("--suggest-budget reads profiles instead of pricing: give no portfolio, "
                                "--load-test, --rerun or --validate-against");
    }
  }
  if (vm.count("memory-profile")) {
    cl.memory_profile = vm["memory-profile"].as<std::string>();
    if (!cl.suggest_budget.empty()) {
      throw configuration_error("--memory-profile records a run (pricing or --load-test), not --suggest-budget");
    }
  }
  if (vm.count("memory-settings")) cl.memory_settings = vm["memory-settings"].as<std::string>();
}

bool ends_with(const std::string& s, const std::string& suffix)
{
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

std::string default_market_path()
{
  if (const char* dir = std::getenv("MCPRICE_DATA_DIR")) return std::string(dir) + "/sample_market.json";
  for (const char* candidate : {MCPRICE_SOURCE_DATA_DIR, MCPRICE_INSTALL_DATA_DIR}) {
    std::string const path = std::string(candidate) + "/sample_market.json";
    if (std::filesystem::exists(path)) return path;
  }
  return std::string(MCPRICE_INSTALL_DATA_DIR) + "/sample_market.json";
}

std::string help_text()
{
  std::ostringstream s;
  s << "price-batch: Monte Carlo prices for a portfolio of options, on the GPU or all CPU cores.\n\n"
       "Usage: price-batch [PORTFOLIO] [--portfolio FILE] [--market FILE] [--out FILE] [options]\n\n"
    << visible_options()
    << "\nExamples:\n"
       "  price-batch data/sample_portfolio.csv\n"
       "  price-batch data/sample_portfolio.csv --market data/sample_market.json --paths 1e7 --out prices.csv\n"
       "  price-batch --portfolio book.csv --backend cpu --threads 8 --seed 7 --format json --out prices.json\n"
       "  price-batch book.csv --out prices.csv --manifest run.json    (then: price-batch --rerun run.json)\n\n"
       "Results: one row per trade in input order (id,status,price,std_error,ci_low,ci_high,paths,message).\n"
       "The same inputs, seed and paths give bit-identical results whatever the threads, grid or streams.\n"
       "Exit status: 0 every trade priced; 2 some trades failed (their rows say why); 1 nothing priced.\n"
       "With --rerun: 0 every trade bit-identical to the manifest; 3 some differ; 4 the inputs changed.\n"
       "With --validate-against: 0 within tolerance and no slower; 3 numbers differ; 5 slower only;\n"
       "4 the inputs changed.\n"
       "SIGINT/SIGTERM: work under way finishes, the rest is marked cancelled, every row is written,\n"
       "exit 128 + the signal (130, 143); a second signal stops at once.\n";
  return s.str();
}

command_line parse_command_line(int argc, const char* const argv[])
{
  // Boost.Program_options 1.74 formats its errors by replacing placeholders in a loop that never
  // ends when the option text holds the placeholder itself ("--x%original_token%" hung price-batch;
  // found by fuzzing): such arguments are refused before Boost sees them.
  for (int i = 1; i < argc; ++i) {
    for (const char* placeholder : {"%canonical_option%", "%original_token%", "%option%", "%value%", "%prefix%"}) {
      if (std::strstr(argv[i], placeholder) != nullptr) {
        throw configuration_error("argument " + std::to_string(i) + " (" + argv[i] + ") holds " + placeholder +
                                  ", which price-batch does not accept");
      }
    }
  }
  // Built once: Boost makes some 60 options with their help texts, which had cost more than a
  // parse (the command-line fuzzer ran at a fifth of its speed). Parsing only reads it.
  static const po::options_description all = [] {
    po::options_description o = visible_options();
    o.add_options()("positional", po::value<std::vector<std::string>>(), "");
    return o;
  }();
  static const po::positional_options_description pos = [] {
    po::positional_options_description p;
    p.add("positional", -1);
    return p;
  }();
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(argc, argv).options(all).positional(pos).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw configuration_error(e.what());
  }

  command_line cl;
  cl.show_help = vm.count("help") > 0;
  cl.show_version = vm.count("version") > 0;
  if (cl.show_help || cl.show_version) return cl;

  auto const get = [&](const char* k) { return vm[k].as<std::string>(); };
  for (auto const& [name, value] : vm) {
    if (!value.defaulted() && name != "positional") cl.given.push_back(name);
  }
  if (vm.count("manifest")) cl.manifest = get("manifest");
  cl.allow_input_change = vm.count("allow-input-change") > 0;
  if (vm.count("rerun") && vm.count("validate-against")) {
    throw configuration_error("give --rerun (bit for bit) or --validate-against (within standard errors), not both");
  }
  for (const char* k : {"rerun", "validate-against"}) {
    if (vm.count(k) && (vm.count("positional") || vm.count("portfolio") || vm.count("market"))) {
      throw configuration_error(std::string("--") + k +
                                " takes the portfolio and the market from the manifest; give neither");
    }
  }
  if (vm.count("rerun")) cl.rerun = get("rerun");
  if (vm.count("validate-against")) cl.validate_against = get("validate-against");
  if (cl.allow_input_change && cl.rerun.empty() && cl.validate_against.empty()) {
    throw configuration_error("--allow-input-change goes with --rerun or --validate-against");
  }
  parse_validation(vm, cl);
  if (vm.count("positional")) {
    auto const& p = vm["positional"].as<std::vector<std::string>>();
    if (p.size() > 1) throw configuration_error("more than one portfolio given: " + p[0] + ", " + p[1]);
    cl.portfolio = p[0];
  }
  if (vm.count("portfolio")) {
    if (!cl.portfolio.empty()) throw configuration_error("the portfolio is given twice");
    cl.portfolio = get("portfolio");
  }
  cl.load_test = vm.count("load-test") > 0;
  parse_budget(vm, cl);
  if (cl.portfolio.empty() && cl.rerun.empty() && cl.validate_against.empty() && !cl.load_test &&
      cl.suggest_budget.empty()) {
    throw configuration_error("no portfolio file given (see --help)");
  }
  if (cl.rerun.empty() && cl.validate_against.empty()) cl.market = vm.count("market") ? get("market") : default_market_path();
  if (vm.count("out")) cl.out = get("out");
  if (vm.count("format")) {
    std::string const f = get("format");
    if (f == "json") cl.format = output_format::json;
    else if (f != "csv") throw configuration_error("--format " + f + ": expected csv or json");
  } else if (ends_with(cl.out, ".json")) {
    cl.format = output_format::json;
  }
  engine_options& e = cl.engine;
  if (vm.count("paths")) e.paths = parse_count(get("paths"), "--paths");
  if (vm.count("steps")) e.steps = parse_count(get("steps"), "--steps");
  if (vm.count("calibration-paths")) e.calibration_paths = parse_count(get("calibration-paths"), "--calibration-paths");
  if (vm.count("seed")) e.seed = static_cast<std::uint64_t>(parse_count(get("seed"), "--seed"));
  if (vm.count("antithetic")) {
    std::string const a = get("antithetic");
    if (a != "on" && a != "off") throw configuration_error("--antithetic " + a + ": expected on or off");
    e.antithetic = a == "on";
  }
  if (vm.count("control-variates")) {
    std::string const c = get("control-variates");
    if (c != "on" && c != "off") throw configuration_error("--control-variates " + c + ": expected on or off");
    e.control_variates = c == "on";
  }
  e.backend = parse_backend(get("backend"));
  if (vm.count("threads")) e.threads = static_cast<unsigned>(parse_count(get("threads"), "--threads"));
  if (vm.count("device")) e.device = static_cast<int>(parse_count(get("device"), "--device"));
  if (vm.count("devices")) {
    if (vm.count("device")) throw configuration_error("give --device or --devices, not both");
    std::string const d = get("devices");
    if (d == "all") e.every_device = true;
    else e.devices = parse_device_list(d, "--devices");
  }
  if (vm.count("streams")) e.streams = static_cast<int>(parse_count(get("streams"), "--streams"));
  if (vm.count("job-cap")) e.job_cap_bytes = parse_bytes(get("job-cap"), "--job-cap");
  if (vm.count("allocator")) e.allocator = parse_allocator(get("allocator"));
  if (vm.count("pool-limit")) {
    std::string const v = get("pool-limit");
    if (v.find('%') != std::string::npos) cl.load_pressures = parse_percentages(v, "--pool-limit");
    else e.pool_limit_bytes = parse_bytes(v, "--pool-limit");
    if (v.find('%') == std::string::npos && e.pool_limit_bytes == 0) {
      throw configuration_error("--pool-limit " + v + ": a limit must be above zero (leave it out for no limit)");
    }
  }
  cl.memory_report = vm.count("memory-report") > 0;
  if (vm.count("route")) {
    std::string const r = get("route");
    if (r == "auto") e.route = kernel_route::automatic;
    else if (r == "fused") e.route = kernel_route::fused;
    else if (r == "two-phase") e.route = kernel_route::two_phase;
    else throw configuration_error("--route " + r + ": expected auto, fused or two-phase");
  }
  if (vm.count("graphs")) {
    std::string const g = get("graphs");
    if (g == "auto") e.graphs = graph_mode::automatic;
    else if (g == "on") e.graphs = graph_mode::on;
    else if (g == "off") e.graphs = graph_mode::off;
    else throw configuration_error("--graphs " + g + ": expected auto, on or off");
  }
  if (vm.count("batch-window-us")) e.batch_window_us = parse_count(get("batch-window-us"), "--batch-window-us");
  if (vm.count("grid-blocks")) e.grid_blocks = static_cast<int>(parse_count(get("grid-blocks"), "--grid-blocks"));
  cl.greeks = vm.count("greeks") > 0;
  e.greeks = cl.greeks;
  if (vm.count("precision")) {
    std::string const p = get("precision");
    if (p != "float" && p != "double") throw configuration_error("--precision " + p + ": expected float or double");
    e.precision = p == "double" ? path_precision::float64 : path_precision::float32;
  }
  if (vm.count("rng")) {
    std::string const r = get("rng");
    if (r != "pseudo" && r != "sobol") throw configuration_error("--rng " + r + ": expected pseudo or sobol");
    e.rng = r == "sobol" ? rng_kind::sobol : rng_kind::pseudo;
  }
  if (vm.count("rqmc-replicates")) {
    e.rqmc_replicates = static_cast<int>(std::min<std::int64_t>(
        parse_count(get("rqmc-replicates"), "--rqmc-replicates"), std::numeric_limits<int>::max()));
    if (e.rqmc_replicates < 2) {
      throw configuration_error("--rqmc-replicates " + get("rqmc-replicates") + ": must be at least 2");
    }
  }
  cl.quiet = vm.count("quiet") > 0;
  parse_load_test(vm, cl);
  return cl;
}

}  // namespace mcprice::cli
