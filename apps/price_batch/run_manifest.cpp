#include "run_manifest.hpp"

#include "mcprice/input_error.hpp"
#include "mcprice/memory/device_info.hpp"
#include "mcprice/version.hpp"
#include "sha256.hpp"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <type_traits>
#include <unistd.h>

namespace mcprice::cli {
namespace {

const char* name_of(backend_choice b)
{
  return b == backend_choice::gpu ? "gpu" : b == backend_choice::cpu ? "cpu" : "auto";
}
const char* name_of(allocator_kind a)
{
  switch (a) {
    case allocator_kind::malloc:
      return "malloc";
    case allocator_kind::async_default:
      return "async-default";
    case allocator_kind::pool:
      return "pool";
    default:
      return "bucketed";
  }
}
const char* name_of(kernel_route r)
{
  return r == kernel_route::fused ? "fused" : r == kernel_route::two_phase ? "two-phase" : "auto";
}

const char* name_of(graph_mode g) { return g == graph_mode::on ? "on" : g == graph_mode::off ? "off" : "auto"; }
const char* name_of(path_precision p) { return p == path_precision::float64 ? "double" : "float"; }

std::string hex64(std::uint64_t v)
{
  static constexpr char digits[] = "0123456789abcdef";
  std::string s(16, '0');
  for (int i = 15; i >= 0; --i, v >>= 4) s[static_cast<std::size_t>(i)] = digits[v & 15];
  return s;
}

std::string host_name()
{
  char buf[256] = {};
  return ::gethostname(buf, sizeof buf - 1) == 0 ? std::string(buf) : std::string("unknown");
}

// Reads manifest fields with messages that name the file and the field.
class field_reader {
 public:
  field_reader(const nlohmann::json& root, std::string file) : root_(root), file_(std::move(file)) {}

  const nlohmann::json& at(const nlohmann::json& obj, const char* key, const std::string& where) const
  {
    if (!obj.is_object() || !obj.contains(key)) fail(where + "/" + key + " is missing");
    return obj.at(key);
  }
  std::string str(const nlohmann::json& obj, const char* key, const std::string& where) const
  {
    auto const& v = at(obj, key, where);
    if (!v.is_string()) fail(where + "/" + key + " must be a string");
    return v.get<std::string>();
  }
  template <typename T>
  static bool fits_integer(const nlohmann::json& v)
  {
    auto const most = static_cast<std::uint64_t>(std::numeric_limits<T>::max());
    if (v.is_number_unsigned()) return v.get<std::uint64_t>() <= most;
    if (!v.is_number_integer()) return false;
    auto const i = v.get<std::int64_t>();
    if (i < 0) return i >= static_cast<std::int64_t>(std::numeric_limits<T>::min());
    return static_cast<std::uint64_t>(i) <= most;
  }
  template <typename T>
  T num(const nlohmann::json& obj, const char* key, const std::string& where) const
  {
    auto const& v = at(obj, key, where);
    if (!v.is_number()) fail(where + "/" + key + " must be a number");
    // A whole number the field can hold: converting 1e75 to int is undefined (found by fuzzing).
    if constexpr (std::is_integral_v<T>) {
      if (!fits_integer<T>(v)) fail(where + "/" + key + " must be a whole number within range");
    }
    return v.get<T>();
  }
  bool flag(const nlohmann::json& obj, const char* key, const std::string& where) const
  {
    auto const& v = at(obj, key, where);
    if (!v.is_boolean()) fail(where + "/" + key + " must be true or false");
    return v.get<bool>();
  }
  [[noreturn]] void fail(const std::string& what) const
  {
    throw configuration_error("manifest " + file_ + ": " + what);
  }
  const nlohmann::json& root() const { return root_; }

 private:
  const nlohmann::json& root_;
  std::string file_;
};

std::uint64_t parse_hex64(const std::string& s, const field_reader& r, const std::string& where)
{
  if (s.size() != 16) r.fail(where + " must be 16 hex digits");
  std::uint64_t v = 0;
  for (char c : s) {
    int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (d < 0) r.fail(where + " must be 16 hex digits");
    v = (v << 4) | static_cast<std::uint64_t>(d);
  }
  return v;
}

}  // namespace

std::uint64_t bits_of(double x)
{
  std::uint64_t b = 0;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

double double_of(std::uint64_t bits)
{
  double x = 0.0;
  std::memcpy(&x, &bits, sizeof x);
  return x;
}

run_manifest make_manifest(const std::string& portfolio_path, const std::string& market_path,
                           const std::string& out_path, output_format format, const engine_options& settings,
                           const pricing_run& run, const std::string& results_text)
{
  run_manifest m;
  m.engine_version = mcprice::version;
  m.engine_commit = mcprice::git_commit;
  // Absolute paths, so a rerun from another directory finds the same files.
  m.portfolio = {std::filesystem::absolute(portfolio_path).string(), sha256_of_file(portfolio_path)};
  m.market = {std::filesystem::absolute(market_path).string(), sha256_of_file(market_path)};
  m.results = {out_path, sha256_hex(results_text)};
  m.results_format = format == output_format::json ? "json" : "csv";
  m.settings = settings;
  m.backend = run.summary.backend == backend_kind::gpu ? "gpu" : "cpu";
  m.device = run.summary.device_name;
  if (run.summary.backend == backend_kind::gpu) {
    device_info const d = query_device(settings.device);
    m.compute_capability = std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor);
    m.driver_version = d.driver_version;
    m.runtime_version = d.runtime_version;
  }
  m.host = host_name();
  for (auto const& r : run.results) {
    bool const ok = r.status == trade_status::ok;
    manifest_trade t{r.id, ok, ok ? bits_of(r.price) : 0, ok ? bits_of(r.std_error) : 0, {}};
    if (ok && r.greeks) {
      for (auto const& g : r.greeks->all()) {
        t.greek_bits.push_back(bits_of(g.value));
        t.greek_bits.push_back(bits_of(g.std_error));
      }
    }
    m.trades.push_back(std::move(t));
  }
  m.timing = {true, run.summary.wall_seconds, run.summary.prepare_seconds, run.summary.price_seconds,
              run.summary.results_seconds};
  return m;
}

nlohmann::json to_json(const run_manifest& m)
{
  const engine_options& s = m.settings;
  nlohmann::json trades = nlohmann::json::array();
  for (auto const& t : m.trades) {
    if (t.ok) {
      nlohmann::json row = {{"id", t.id}, {"price", hex64(t.price_bits)}, {"std_error", hex64(t.std_error_bits)}};
      if (!t.greek_bits.empty()) {
        auto& greeks = row["greeks"] = nlohmann::json::array();
        for (std::uint64_t b : t.greek_bits) greeks.push_back(hex64(b));
      }
      trades.push_back(std::move(row));
    } else {
      trades.push_back({{"id", t.id}, {"price", nullptr}, {"std_error", nullptr}});
    }
  }
  return {{"mcprice_run_manifest", m.version},
          {"engine", {{"version", m.engine_version}, {"commit", m.engine_commit}}},
          {"inputs",
           {{"portfolio", {{"path", m.portfolio.path}, {"sha256", m.portfolio.sha256}}},
            {"market", {{"path", m.market.path}, {"sha256", m.market.sha256}}}}},
          {"results", {{"path", m.results.path}, {"format", m.results_format}, {"sha256", m.results.sha256}}},
          {"settings",
           {{"seed", s.seed},
            {"paths", s.paths},
            {"steps", s.steps},
            {"antithetic", s.antithetic},
            {"control_variates", s.control_variates},
            {"greeks", s.greeks},
            {"calibration_paths", s.calibration_paths},
            {"precision", name_of(s.precision)},
            {"rng", s.rng == rng_kind::sobol ? "sobol" : "pseudo"},
            {"rqmc_replicates", s.rqmc_replicates},
            {"backend", m.backend},
            {"backend_requested", name_of(s.backend)},
            {"threads", s.threads},
            {"device", s.device},
            {"devices", s.devices},
            {"every_device", s.every_device},
            {"streams", s.streams},
            {"job_cap_bytes", s.job_cap_bytes},
            {"allocator", name_of(s.allocator)},
            {"pool_limit_bytes", s.pool_limit_bytes},
            {"grid_blocks", s.grid_blocks},
            {"route", name_of(s.route)},
            {"graphs", name_of(s.graphs)},
            {"pipeline_chunk_trades", s.pipeline_chunk_trades}}},
          {"environment",
           {{"device", m.device},
            {"compute_capability", m.compute_capability},
            {"driver_version", m.driver_version},
            {"runtime_version", m.runtime_version},
            {"host", m.host},
            {"ranks", m.rank_hosts.empty() ? std::size_t{1} : m.rank_hosts.size()},
            {"rank_hosts", m.rank_hosts}}},
          {"timing",
           {{"wall_seconds", m.timing.wall_seconds},
            {"prepare_seconds", m.timing.prepare_seconds},
            {"price_seconds", m.timing.price_seconds},
            {"results_seconds", m.timing.results_seconds}}},
          {"trades", trades}};
}

run_manifest manifest_from_json(const nlohmann::json& j, const std::string& file)
{
  field_reader const r(j, file);
  run_manifest m;
  if (!j.is_object() || !j.contains("mcprice_run_manifest")) r.fail("not an mcprice run manifest");
  m.version = r.num<int>(j, "mcprice_run_manifest", "");
  if (m.version != 1) r.fail("version " + std::to_string(m.version) + " is not supported (expected 1)");
  auto const& engine = r.at(j, "engine", "");
  m.engine_version = r.str(engine, "version", "/engine");
  m.engine_commit = r.str(engine, "commit", "/engine");
  auto const& inputs = r.at(j, "inputs", "");
  auto const& pf = r.at(inputs, "portfolio", "/inputs");
  m.portfolio = {r.str(pf, "path", "/inputs/portfolio"), r.str(pf, "sha256", "/inputs/portfolio")};
  auto const& mk = r.at(inputs, "market", "/inputs");
  m.market = {r.str(mk, "path", "/inputs/market"), r.str(mk, "sha256", "/inputs/market")};
  auto const& res = r.at(j, "results", "");
  m.results = {r.str(res, "path", "/results"), r.str(res, "sha256", "/results")};
  m.results_format = r.str(res, "format", "/results");
  auto const& s = r.at(j, "settings", "");
  engine_options& o = m.settings;
  o.seed = r.num<std::uint64_t>(s, "seed", "/settings");
  o.paths = r.num<std::int64_t>(s, "paths", "/settings");
  o.steps = r.num<std::int64_t>(s, "steps", "/settings");
  o.antithetic = r.flag(s, "antithetic", "/settings");
  o.control_variates = r.flag(s, "control_variates", "/settings");
  o.greeks = s.contains("greeks") && r.flag(s, "greeks", "/settings");  // manifests before Greeks lack it
  // Manifests before early exercise lack it (their trades had no use for it: 0, the default).
  if (s.contains("calibration_paths")) o.calibration_paths = r.num<std::int64_t>(s, "calibration_paths", "/settings");
  std::string const precision = r.str(s, "precision", "/settings");
  if (precision != "float" && precision != "double") r.fail("/settings/precision must be float or double");
  o.precision = precision == "double" ? path_precision::float64 : path_precision::float32;
  // Manifests before quasi-Monte Carlo lack these (pseudo-random numbers, the default).
  if (s.contains("rng")) {
    std::string const rng = r.str(s, "rng", "/settings");
    if (rng != "pseudo" && rng != "sobol") r.fail("/settings/rng must be pseudo or sobol");
    o.rng = rng == "sobol" ? rng_kind::sobol : rng_kind::pseudo;
  }
  if (s.contains("rqmc_replicates")) o.rqmc_replicates = r.num<int>(s, "rqmc_replicates", "/settings");
  m.backend = r.str(s, "backend", "/settings");
  if (m.backend != "cpu" && m.backend != "gpu") r.fail("/settings/backend must be cpu or gpu");
  std::string const requested = r.str(s, "backend_requested", "/settings");
  o.backend = requested == "gpu"   ? backend_choice::gpu
              : requested == "cpu" ? backend_choice::cpu
                                   : backend_choice::automatic;
  o.threads = r.num<unsigned>(s, "threads", "/settings");
  o.device = r.num<int>(s, "device", "/settings");
  // Manifests before several GPUs lack these (one device: the defaults).
  if (s.contains("devices")) {
    auto const& d = s.at("devices");
    if (!d.is_array() || !std::all_of(d.begin(), d.end(), [](auto const& v) { return v.is_number_integer(); })) {
      r.fail("/settings/devices must be an array of GPU ordinals");
    }
    o.devices = d.get<std::vector<int>>();
  }
  if (s.contains("every_device")) o.every_device = r.flag(s, "every_device", "/settings");
  o.streams = r.num<int>(s, "streams", "/settings");
  o.job_cap_bytes = r.num<std::size_t>(s, "job_cap_bytes", "/settings");
  std::string const alloc = r.str(s, "allocator", "/settings");
  o.allocator = alloc == "malloc"          ? allocator_kind::malloc
                : alloc == "async-default" ? allocator_kind::async_default
                : alloc == "pool"          ? allocator_kind::pool
                                           : allocator_kind::bucketed;
  o.pool_limit_bytes = r.num<std::size_t>(s, "pool_limit_bytes", "/settings");
  o.grid_blocks = r.num<int>(s, "grid_blocks", "/settings");
  std::string const route = r.str(s, "route", "/settings");
  o.route = route == "fused"       ? kernel_route::fused
            : route == "two-phase" ? kernel_route::two_phase
                                   : kernel_route::automatic;
  // Manifests before CUDA graphs lack it: they ran eagerly.
  std::string const graphs = s.contains("graphs") ? r.str(s, "graphs", "/settings") : "off";
  if (graphs != "auto" && graphs != "on" && graphs != "off") r.fail("/settings/graphs must be auto, on or off");
  o.graphs = graphs == "on" ? graph_mode::on : graphs == "off" ? graph_mode::off : graph_mode::automatic;
  o.pipeline_chunk_trades = r.num<std::size_t>(s, "pipeline_chunk_trades", "/settings");
  auto const& env = r.at(j, "environment", "");
  m.device = r.str(env, "device", "/environment");
  m.compute_capability = r.str(env, "compute_capability", "/environment");
  m.driver_version = r.num<int>(env, "driver_version", "/environment");
  m.runtime_version = r.num<int>(env, "runtime_version", "/environment");
  m.host = r.str(env, "host", "/environment");
  if (env.contains("rank_hosts")) {
    auto const& h = env.at("rank_hosts");
    if (!h.is_array() || !std::all_of(h.begin(), h.end(), [](auto const& v) { return v.is_string(); })) {
      r.fail("/environment/rank_hosts must be an array of host names");
    }
    m.rank_hosts = h.get<std::vector<std::string>>();
  }
  if (j.contains("timing")) {  // manifests before 2026-12-04 lack it
    auto const& t = j.at("timing");
    m.timing = {true, r.num<double>(t, "wall_seconds", "/timing"), r.num<double>(t, "prepare_seconds", "/timing"),
                r.num<double>(t, "price_seconds", "/timing"), r.num<double>(t, "results_seconds", "/timing")};
    for (double const v : {m.timing.wall_seconds, m.timing.prepare_seconds, m.timing.price_seconds,
                           m.timing.results_seconds}) {
      if (!(v >= 0.0)) r.fail("/timing: every figure must be a number of seconds, 0 or more");
    }
  }
  auto const& trades = r.at(j, "trades", "");
  if (!trades.is_array()) r.fail("/trades must be an array");
  for (std::size_t i = 0; i < trades.size(); ++i) {
    std::string const where = "/trades/" + std::to_string(i);
    auto const& t = trades[i];
    manifest_trade mt;
    mt.id = r.str(t, "id", where);
    auto const& price = r.at(t, "price", where);
    mt.ok = !price.is_null();
    if (mt.ok) {
      mt.price_bits = parse_hex64(r.str(t, "price", where), r, where + "/price");
      mt.std_error_bits = parse_hex64(r.str(t, "std_error", where), r, where + "/std_error");
      if (t.contains("greeks")) {
        auto const& greeks = t["greeks"];
        if (!greeks.is_array() || greeks.empty() || greeks.size() % 2 != 0) {
          r.fail(where + "/greeks must be an array of hex doubles, a value and a std error per Greek");
        }
        for (std::size_t k = 0; k < greeks.size(); ++k) {
          std::string const at = where + "/greeks/" + std::to_string(k);
          if (!greeks[k].is_string()) r.fail(at + " must be a hex string");
          mt.greek_bits.push_back(parse_hex64(greeks[k].get<std::string>(), r, at));
        }
      }
    }
    m.trades.push_back(mt);
  }
  return m;
}

run_manifest read_manifest(const std::string& path)
{
  std::ifstream in(path, std::ios::binary);
  if (!in) throw configuration_error("manifest " + path + ": cannot be read");
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text.str());
  } catch (const nlohmann::json::exception& e) {  // parse errors and out-of-range numbers
    throw configuration_error("manifest " + path + ": not valid JSON (" + e.what() + ")");
  }
  return manifest_from_json(j, path);
}

}  // namespace mcprice::cli
