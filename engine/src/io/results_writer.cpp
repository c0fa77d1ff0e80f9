#include "mcprice/results_writer.hpp"

#include <nlohmann/json.hpp>

#include <array>
#include <charconv>

namespace mcprice {
namespace {

std::string csv_escape(const std::string& s)
{
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char const c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

constexpr const char* greek_names[] = {"delta", "gamma", "vega", "theta", "rho"};

// The contract's five Greeks of a trade: one estimate each, or for multi-asset trades one per
// underlying for delta, gamma and vega.
std::array<std::vector<greek_estimate>, 5> greeks_of(const trade_greeks& g)
{
  if (g.multi_asset()) return {g.deltas, g.gammas, g.vegas, {g.theta}, {g.rho}};
  return {std::vector<greek_estimate>{g.delta}, {g.gamma}, {g.vega}, {g.theta}, {g.rho}};
}

// Values joined by ';' (the contract's multi-asset form; one value is just the value).
std::string joined_values(const std::vector<greek_estimate>& v)
{
  std::string out;
  for (std::size_t i = 0; i < v.size(); ++i) out += (i > 0 ? ";" : "") + format_double(v[i].value);
  return out;
}

// A JSON number, or an array of them for several underlyings.
nlohmann::ordered_json json_of(const std::vector<greek_estimate>& v, bool multi, bool error)
{
  if (!multi) return error ? v.front().std_error : v.front().value;
  auto out = nlohmann::ordered_json::array();
  for (auto const& e : v) out.push_back(error ? e.std_error : e.value);
  return out;
}

const char* method_name(greek_method m)
{
  switch (m) {
    case greek_method::likelihood_ratio:
      return "likelihood-ratio";
    case greek_method::pathwise_bumped_gamma:
      return "pathwise, gamma by bump";
    case greek_method::central_bumps:
      return "central bumps, common random numbers";
    default:
      return "pathwise";
  }
}

}  // namespace

const char* status_name(trade_status s)
{
  switch (s) {
    case trade_status::ok:
      return "ok";
    case trade_status::cancelled:
      return "cancelled";
    default:
      return "error";
  }
}

std::string format_double(double v)
{
  char buf[64];
  auto const res = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, res.ptr);
}

void write_results_csv(std::ostream& out, const pricing_run& run)
{
  bool const greeks = run.summary.greeks;
  out << "id,status,price,std_error,ci_low,ci_high,paths," << (greeks ? "delta,gamma,vega,theta,rho," : "")
      << "message\n";
  for (auto const& r : run.results) {
    out << csv_escape(r.id) << ',' << status_name(r.status) << ',';
    if (r.status == trade_status::ok) {
      out << format_double(r.price) << ',' << format_double(r.std_error) << ',' << format_double(r.ci_low) << ','
          << format_double(r.ci_high) << ',' << r.paths;
    } else {
      out << ",,,,";
    }
    // A product without Greeks in this release leaves its cells empty (docs/greeks.md).
    if (greeks) {
      for (std::size_t i = 0; i < std::size(greek_names); ++i) {
        out << ',';
        if (r.greeks) out << csv_escape(joined_values(greeks_of(*r.greeks)[i]));
      }
    }
    out << ',' << csv_escape(r.message) << '\n';
  }
}

void write_results_json(std::ostream& out, const pricing_run& run)
{
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (auto const& r : run.results) {
    nlohmann::ordered_json row;
    row["id"] = r.id;
    row["status"] = status_name(r.status);
    if (r.status == trade_status::ok) {
      row["price"] = r.price;
      row["std_error"] = r.std_error;
      row["ci_low"] = r.ci_low;
      row["ci_high"] = r.ci_high;
      row["paths"] = r.paths;
    } else {
      for (const char* k : {"price", "std_error", "ci_low", "ci_high", "paths"}) row[k] = nullptr;
    }
    if (run.summary.greeks) {
      // Each Greek with its own standard error, and the estimator used.
      bool const multi = r.greeks && r.greeks->multi_asset();
      for (std::size_t i = 0; i < std::size(greek_names); ++i) {
        std::string const name = greek_names[i];
        row[name] = r.greeks ? json_of(greeks_of(*r.greeks)[i], multi && i < 3, false) : nlohmann::ordered_json();
        row[name + "_std_error"] =
            r.greeks ? json_of(greeks_of(*r.greeks)[i], multi && i < 3, true) : nlohmann::ordered_json();
      }
      row["greek_method"] = r.greeks ? nlohmann::ordered_json(method_name(r.greeks->method)) : nlohmann::ordered_json();
      if (multi) {
        // Cross gammas by the underlyings' positions in the trade (0-based), and correlation vega.
        auto cross = nlohmann::ordered_json::array();
        std::size_t k = 0;
        for (std::size_t i = 0; i < r.greeks->deltas.size(); ++i) {
          for (std::size_t j = i + 1; j < r.greeks->deltas.size(); ++j, ++k) {
            cross.push_back({{"assets", {i, j}},
                             {"value", r.greeks->cross_gammas[k].value},
                             {"std_error", r.greeks->cross_gammas[k].std_error}});
          }
        }
        row["cross_gamma"] = std::move(cross);
        row["correlation_vega"] = r.greeks->correlation_vega.value;
        row["correlation_vega_std_error"] = r.greeks->correlation_vega.std_error;
      }
    }
    if (r.redemption) {
      row["redemption_times"] = r.redemption->times;
      row["redemption_probabilities"] = r.redemption->probabilities;
      row["expected_life"] = r.redemption->expected_life;
      row["knock_in_probability"] = r.redemption->knock_in_probability;
    }
    row["message"] = r.message;
    rows.push_back(std::move(row));
  }
  nlohmann::ordered_json doc;
  doc["results"] = std::move(rows);
  auto const& s = run.summary;
  doc["summary"] = {{"trades", s.trades},
                    {"failed", s.failed},
                    {"paths", s.paths},
                    {"wall_seconds", s.wall_seconds},
                    {"backend", s.backend == backend_kind::gpu ? "gpu" : "cpu"},
                    {"device", s.device_name}};
  out << doc.dump(2) << '\n';
}

void write_results(std::ostream& out, const pricing_run& run, output_format format)
{
  if (format == output_format::json) write_results_json(out, run);
  else write_results_csv(out, run);
}

}  // namespace mcprice
