#include "run_wire.hpp"

#include "mcprice/input_error.hpp"
#include "run_manifest.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <vector>

namespace mcprice::cli {

namespace {

using nlohmann::json;

// CBOR of a run: compact, and a well-kept library's, rather than a hand-packed layout.
constexpr int wire_version = 1;

json estimate_to(const greek_estimate& g) { return json::array({bits_of(g.value), bits_of(g.std_error)}); }

greek_estimate estimate_from(const json& j)
{
  return {double_of(j.at(0).get<std::uint64_t>()), double_of(j.at(1).get<std::uint64_t>())};
}

json estimates_to(const std::vector<greek_estimate>& v)
{
  json out = json::array();
  for (auto const& g : v) out.push_back(estimate_to(g));
  return out;
}

std::vector<greek_estimate> estimates_from(const json& j)
{
  std::vector<greek_estimate> out;
  for (auto const& g : j) out.push_back(estimate_from(g));
  return out;
}

json greeks_to(const trade_greeks& g)
{
  return {{"delta", estimate_to(g.delta)},
          {"gamma", estimate_to(g.gamma)},
          {"vega", estimate_to(g.vega)},
          {"theta", estimate_to(g.theta)},
          {"rho", estimate_to(g.rho)},
          {"method", static_cast<int>(g.method)},
          {"deltas", estimates_to(g.deltas)},
          {"gammas", estimates_to(g.gammas)},
          {"vegas", estimates_to(g.vegas)},
          {"cross_gammas", estimates_to(g.cross_gammas)},
          {"correlation_vega", estimate_to(g.correlation_vega)}};
}

trade_greeks greeks_from(const json& j)
{
  trade_greeks g;
  g.delta = estimate_from(j.at("delta"));
  g.gamma = estimate_from(j.at("gamma"));
  g.vega = estimate_from(j.at("vega"));
  g.theta = estimate_from(j.at("theta"));
  g.rho = estimate_from(j.at("rho"));
  g.method = static_cast<greek_method>(j.at("method").get<int>());
  g.deltas = estimates_from(j.at("deltas"));
  g.gammas = estimates_from(j.at("gammas"));
  g.vegas = estimates_from(j.at("vegas"));
  g.cross_gammas = estimates_from(j.at("cross_gammas"));
  g.correlation_vega = estimate_from(j.at("correlation_vega"));
  return g;
}

json bits_to(const std::vector<double>& v)
{
  json out = json::array();
  for (double x : v) out.push_back(bits_of(x));
  return out;
}

std::vector<double> bits_from(const json& j)
{
  std::vector<double> out;
  for (auto const& x : j) out.push_back(double_of(x.get<std::uint64_t>()));
  return out;
}

json redemption_to(const redemption_statistics& s)
{
  return {{"times", bits_to(s.times)},
          {"probabilities", bits_to(s.probabilities)},
          {"expected_life", bits_of(s.expected_life)},
          {"knock_in_probability", bits_of(s.knock_in_probability)}};
}

redemption_statistics redemption_from(const json& j)
{
  redemption_statistics s;
  s.times = bits_from(j.at("times"));
  s.probabilities = bits_from(j.at("probabilities"));
  s.expected_life = double_of(j.at("expected_life").get<std::uint64_t>());
  s.knock_in_probability = double_of(j.at("knock_in_probability").get<std::uint64_t>());
  return s;
}

json result_to(const trade_result& r)
{
  json out = {{"id", r.id},
              {"status", static_cast<int>(r.status)},
              {"price", bits_of(r.price)},
              {"std_error", bits_of(r.std_error)},
              {"ci_low", bits_of(r.ci_low)},
              {"ci_high", bits_of(r.ci_high)},
              {"paths", r.paths},
              {"message", r.message}};
  if (r.greeks) out["greeks"] = greeks_to(*r.greeks);
  if (r.redemption) out["redemption"] = redemption_to(*r.redemption);
  return out;
}

trade_result result_from(const json& j)
{
  trade_result r;
  r.id = j.at("id").get<std::string>();
  r.status = static_cast<trade_status>(j.at("status").get<int>());
  r.price = double_of(j.at("price").get<std::uint64_t>());
  r.std_error = double_of(j.at("std_error").get<std::uint64_t>());
  r.ci_low = double_of(j.at("ci_low").get<std::uint64_t>());
  r.ci_high = double_of(j.at("ci_high").get<std::uint64_t>());
  r.paths = j.at("paths").get<std::int64_t>();
  r.message = j.at("message").get<std::string>();
  if (j.contains("greeks")) r.greeks = greeks_from(j.at("greeks"));
  if (j.contains("redemption")) r.redemption = redemption_from(j.at("redemption"));
  return r;
}

}  // namespace

std::string encode_run(const pricing_run& run)
{
  run_summary const& s = run.summary;
  json results = json::array();
  for (auto const& r : run.results) results.push_back(result_to(r));
  json const j = {{"wire", wire_version},
                  {"results", std::move(results)},
                  {"summary",
                   {{"trades", s.trades},
                    {"failed", s.failed},
                    {"cancelled", s.cancelled},
                    {"paths", s.paths},
                    {"wall_seconds", s.wall_seconds},
                    {"backend", static_cast<int>(s.backend)},
                    {"device_name", s.device_name},
                    {"devices", s.devices},
                    {"prepare_seconds", s.prepare_seconds},
                    {"price_seconds", s.price_seconds},
                    {"results_seconds", s.results_seconds},
                    {"jobs", s.jobs},
                    {"chunks", s.chunks},
                    {"greeks", s.greeks},
                    {"without_greeks", s.without_greeks}}}};
  auto const bytes = json::to_cbor(j);
  return {bytes.begin(), bytes.end()};
}

pricing_run decode_run(const std::string& bytes)
{
  try {
    json const j = json::from_cbor(bytes);
    if (j.at("wire").get<int>() != wire_version) throw configuration_error("a rank sent a run of another version");
    pricing_run run;
    for (auto const& r : j.at("results")) run.results.push_back(result_from(r));
    auto const& s = j.at("summary");
    run_summary& o = run.summary;
    o.trades = s.at("trades").get<std::size_t>();
    o.failed = s.at("failed").get<std::size_t>();
    o.cancelled = s.at("cancelled").get<std::size_t>();
    o.paths = s.at("paths").get<std::int64_t>();
    o.wall_seconds = s.at("wall_seconds").get<double>();
    o.backend = static_cast<backend_kind>(s.at("backend").get<int>());
    o.device_name = s.at("device_name").get<std::string>();
    o.devices = s.at("devices").get<std::size_t>();
    o.prepare_seconds = s.at("prepare_seconds").get<double>();
    o.price_seconds = s.at("price_seconds").get<double>();
    o.results_seconds = s.at("results_seconds").get<double>();
    o.jobs = s.at("jobs").get<std::size_t>();
    o.chunks = s.at("chunks").get<std::size_t>();
    o.greeks = s.at("greeks").get<bool>();
    o.without_greeks = s.at("without_greeks").get<std::size_t>();
    return run;
  } catch (const nlohmann::json::exception& e) {
    throw configuration_error(std::string("a rank's results could not be read: ") + e.what());
  }
}

}  // namespace mcprice::cli
