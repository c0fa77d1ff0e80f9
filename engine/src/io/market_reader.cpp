#include "mcprice/market_reader.hpp"

#include "io/file_text.hpp"
#include "io/json_positions.hpp"
#include "io/text_values.hpp"
#include "market/surface_arbitrage.hpp"
#include "mcprice/input_error.hpp"

#include <Eigen/Eigenvalues>
#include <nlohmann/json.hpp>

#include <cmath>
#include <initializer_list>

namespace mcprice {
namespace {

using json = nlohmann::json;

class reader {
 public:
  reader(std::string_view text, std::string file) : positions_(text), file_(std::move(file)) {}

  [[noreturn]] void fail(const std::string& pointer, const std::string& what) const
  {
    auto const pos = positions_.at(pointer);
    throw input_error({file_, pos.line, pos.column}, (pointer.empty() ? std::string("/") : pointer) + ": " + what);
  }

  static std::string type_of(const json& v) { return v.type_name(); }

  void expect_keys(const json& obj, const std::string& ptr, std::initializer_list<const char*> keys) const
  {
    for (auto const& [key, value] : obj.items()) {
      if (!key.empty() && key.front() == '_') continue;
      bool known = false;
      std::string list;
      for (const char* k : keys) {
        known = known || key == k;
        list += (list.empty() ? "" : ", ") + std::string(k);
      }
      if (!known) fail(ptr + "/" + key, "unknown key '" + key + "' (expected: " + list + ")");
    }
  }

  const json& object(const json& v, const std::string& ptr) const
  {
    if (!v.is_object()) fail(ptr, "expected an object, got " + type_of(v));
    return v;
  }

  double number(const json& v, const std::string& ptr) const
  {
    if (!v.is_number()) fail(ptr, "expected a number, got " + type_of(v));
    double const d = v.get<double>();
    if (!std::isfinite(d)) fail(ptr, "expected a finite number");
    return d;
  }

  double number_in(const json& v, const std::string& ptr, double lo, double hi, const char* range) const
  {
    double const d = number(v, ptr);
    if (d < lo || d > hi) fail(ptr, "value " + show(d) + " is out of range: must be " + range);
    return d;
  }

  const json& member(const json& obj, const std::string& ptr, const char* key) const
  {
    if (!obj.contains(key)) fail(ptr, std::string("missing required key '") + key + "'");
    return obj.at(key);
  }

  std::vector<double> numbers(const json& v, const std::string& ptr) const
  {
    if (!v.is_array()) fail(ptr, "expected an array of numbers, got " + type_of(v));
    if (v.empty()) fail(ptr, "expected at least one number");
    std::vector<double> out;
    for (std::size_t i = 0; i < v.size(); ++i) out.push_back(number(v[i], ptr + "/" + std::to_string(i)));
    return out;
  }

  // {"times": [...], "<values_key>": [...]}: times > 0 strictly increasing, same lengths.
  std::pair<std::vector<double>, std::vector<double>> pillars(const json& v, const std::string& ptr,
                                                              const char* values_key) const
  {
    object(v, ptr);
    expect_keys(v, ptr, {"times", values_key});
    auto times = numbers(member(v, ptr, "times"), ptr + "/times");
    auto values = numbers(member(v, ptr, values_key), ptr + "/" + values_key);
    if (times.size() != values.size()) {
      fail(ptr, "'times' has " + std::to_string(times.size()) + " entries but '" + values_key + "' has " +
                    std::to_string(values.size()));
    }
    check_increasing(times, ptr + "/times", "time");
    return {std::move(times), std::move(values)};
  }

  // Each value > 0 and greater than the one before; a failure names its index under `ptr`.
  void check_increasing(const std::vector<double>& values, const std::string& ptr, const char* what) const
  {
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (values[i] <= 0.0 || (i > 0 && values[i] <= values[i - 1])) {
        fail(ptr + "/" + std::to_string(i),
             std::string(what) + " " + show(values[i]) + " must be > 0 and greater than the one before");
      }
    }
  }

  rate_curve rates(const json& v, const std::string& ptr, const char* values_key) const
  {
    if (v.is_number()) return rate_curve::flat(number(v, ptr));
    if (!v.is_object()) fail(ptr, "expected a number or a term structure object, got " + type_of(v));
    auto [t, r] = pillars(v, ptr, values_key);
    return rate_curve(std::move(t), std::move(r));
  }

  vol_curve vols(const json& v, const std::string& ptr) const
  {
    if (v.is_number()) return vol_curve::flat(number_in(v, ptr, 0.0, 10.0, "in [0, 10]"));
    if (!v.is_object()) fail(ptr, "expected a number or a term structure object, got " + type_of(v));
    auto [t, s] = pillars(v, ptr, "vols");
    for (std::size_t i = 0; i < s.size(); ++i) {
      number_in(v["vols"][i], ptr + "/vols/" + std::to_string(i), 0.0, 10.0, "in [0, 10]");
    }
    vol_curve curve(std::move(t), std::move(s));
    if (int const bad = curve.first_decreasing_pillar(); bad >= 0) {
      fail(ptr + "/vols/" + std::to_string(bad), "total variance falls between pillars " + std::to_string(bad - 1) +
                                                     " and " + std::to_string(bad) + " (calendar arbitrage)");
    }
    return curve;
  }

  static std::string show(double d) { return detail::shown(d); }

 private:
  detail::json_positions positions_;
  std::string file_;
};

heston_params read_heston(const reader& rd, const json& v, const std::string& ptr)
{
  rd.object(v, ptr);
  rd.expect_keys(v, ptr, {"v0", "kappa", "theta", "xi", "rho"});
  constexpr double inf = 1e300;
  heston_params h;
  h.v0 = rd.number_in(rd.member(v, ptr, "v0"), ptr + "/v0", 0.0, inf, ">= 0");
  h.kappa = rd.number_in(rd.member(v, ptr, "kappa"), ptr + "/kappa", 0.0, inf, ">= 0");
  h.theta = rd.number_in(rd.member(v, ptr, "theta"), ptr + "/theta", 0.0, inf, ">= 0");
  h.xi = rd.number_in(rd.member(v, ptr, "xi"), ptr + "/xi", 0.0, inf, ">= 0");
  h.rho = rd.number_in(rd.member(v, ptr, "rho"), ptr + "/rho", -1.0, 1.0, "in [-1, 1]");
  return h;
}

jump_params read_jumps(const reader& rd, const json& v, const std::string& ptr)
{
  rd.object(v, ptr);
  rd.expect_keys(v, ptr, {"intensity", "mean", "vol"});
  constexpr double inf = 1e300;
  jump_params j;
  j.intensity = rd.number_in(rd.member(v, ptr, "intensity"), ptr + "/intensity", 0.0, inf, ">= 0");
  j.mean = rd.number_in(rd.member(v, ptr, "mean"), ptr + "/mean", -10.0, 10.0, "in [-10, 10] (a log jump size)");
  j.vol = rd.number_in(rd.member(v, ptr, "vol"), ptr + "/vol", 0.0, 10.0, "in [0, 10]");
  return j;
}

// Increasing positive numbers, each failure at its own index.
std::vector<double> increasing_axis(const reader& rd, const json& v, const std::string& ptr, const char* what)
{
  auto values = rd.numbers(v, ptr);
  rd.check_increasing(values, ptr, what);
  return values;
}

implied_vol_surface read_surface(const reader& rd, const json& v, const std::string& ptr, const asset& a,
                                 const rate_curve& discount)
{
  rd.object(v, ptr);
  rd.expect_keys(v, ptr, {"expiries", "strikes", "vols"});
  implied_vol_surface s;
  s.expiries = increasing_axis(rd, rd.member(v, ptr, "expiries"), ptr + "/expiries", "expiry");
  s.strikes = increasing_axis(rd, rd.member(v, ptr, "strikes"), ptr + "/strikes", "strike");
  if (a.spot < s.strikes.front() || a.spot > s.strikes.back()) {
    rd.fail(ptr + "/strikes", "strikes [" + reader::show(s.strikes.front()) + ", " + reader::show(s.strikes.back()) +
                                  "] do not bracket the spot " + reader::show(a.spot));
  }
  const json& rows = rd.member(v, ptr, "vols");
  if (!rows.is_array() || rows.size() != s.expiries.size()) {
    rd.fail(ptr + "/vols", "expected one row of vols for each of the " + std::to_string(s.expiries.size()) +
                               " expiries, got " + (rows.is_array() ? std::to_string(rows.size()) : reader::type_of(rows)));
  }
  for (std::size_t i = 0; i < rows.size(); ++i) {
    std::string const row_ptr = ptr + "/vols/" + std::to_string(i);
    if (!rows[i].is_array() || rows[i].size() != s.strikes.size()) {
      rd.fail(row_ptr, "expected a vol for each of the " + std::to_string(s.strikes.size()) + " strikes");
    }
    std::vector<double> row;
    for (std::size_t j = 0; j < rows[i].size(); ++j) {
      row.push_back(rd.number_in(rows[i][j], row_ptr + "/" + std::to_string(j), 1e-8, 10.0, "in (0, 10]"));
    }
    s.vols.push_back(std::move(row));
  }
  auto const forward = [&](double t) { return a.spot * a.dividend.discount(t) / discount.discount(t); };
  if (auto const bad = detail::find_surface_arbitrage(s, forward)) {
    rd.fail(ptr + "/vols/" + std::to_string(bad->expiry) + "/" + std::to_string(bad->strike),
            "expiry " + reader::show(s.expiries[bad->expiry]) + ", strike " + reader::show(s.strikes[bad->strike]) +
                ": " + bad->what);
  }
  return s;
}

model_kind read_model(const reader& rd, const json& v, const std::string& ptr)
{
  if (!v.contains("model")) return model_kind::gbm;
  const json& m = v["model"];
  if (m == "gbm") return model_kind::gbm;
  if (m == "heston") return model_kind::heston;
  if (m == "local_vol") return model_kind::local_vol;
  rd.fail(ptr + "/model", "model " + m.dump() + " is not one of: gbm, heston, local_vol");
}

asset read_asset(const reader& rd, const std::string& name, const json& v, const std::string& ptr,
                 const rate_curve& discount)
{
  rd.object(v, ptr);
  rd.expect_keys(v, ptr, {"spot", "dividend_yield", "vol", "model", "heston", "vol_surface", "jumps"});
  asset a;
  a.name = name;
  a.spot = rd.number(rd.member(v, ptr, "spot"), ptr + "/spot");
  if (a.spot <= 0.0) rd.fail(ptr + "/spot", "spot " + reader::show(a.spot) + " must be > 0");
  if (v.contains("dividend_yield")) a.dividend = rd.rates(v["dividend_yield"], ptr + "/dividend_yield", "rates");
  a.model = read_model(rd, v, ptr);
  if (a.model != model_kind::heston && v.contains("heston")) {
    rd.fail(ptr + "/heston", "'heston' parameters given for a " + std::string(a.model == model_kind::gbm ? "gbm" : "local_vol") +
                                 " asset");
  }
  if (a.model != model_kind::local_vol && v.contains("vol_surface")) {
    rd.fail(ptr + "/vol_surface", "'vol_surface' is read for model local_vol only");
  }
  if (a.model == model_kind::heston) {
    a.heston = read_heston(rd, rd.member(v, ptr, "heston"), ptr + "/heston");
    if (v.contains("vol")) a.vol = rd.vols(v["vol"], ptr + "/vol");
  } else if (a.model == model_kind::local_vol) {
    if (v.contains("jumps")) rd.fail(ptr + "/jumps", "jumps on a local_vol asset are not supported (gbm or heston only)");
    a.surface = read_surface(rd, rd.member(v, ptr, "vol_surface"), ptr + "/vol_surface", a, discount);
    if (v.contains("vol")) a.vol = rd.vols(v["vol"], ptr + "/vol");
  } else {
    a.vol = rd.vols(rd.member(v, ptr, "vol"), ptr + "/vol");
  }
  if (v.contains("jumps")) a.jumps = read_jumps(rd, v["jumps"], ptr + "/jumps");
  return a;
}

class correlation_builder {
 public:
  correlation_builder(const reader& rd, const std::vector<asset>& assets)
      : rd_(rd), assets_(assets), n_(assets.size()), m_(n_ * n_, 0.0), given_(n_ * n_, false)
  {
    for (std::size_t i = 0; i < n_; ++i) m_[i * n_ + i] = 1.0;
  }

  void set(std::size_t i, std::size_t j, double rho, const std::string& ptr)
  {
    if (i == j && rho != 1.0) rd_.fail(ptr, "the correlation of an asset with itself must be 1");
    if (given_[i * n_ + j] && m_[i * n_ + j] != rho) {
      rd_.fail(ptr, "correlation of " + assets_[i].name + " and " + assets_[j].name +
                        " is given twice with different values");
    }
    m_[i * n_ + j] = m_[j * n_ + i] = rho;
    given_[i * n_ + j] = given_[j * n_ + i] = true;
  }

  std::size_t index(const std::string& name, const std::string& ptr) const
  {
    for (std::size_t i = 0; i < n_; ++i) {
      if (assets_[i].name == name) return i;
    }
    rd_.fail(ptr, "'" + name + "' is not an asset of this market");
  }

  std::vector<double> finish(const std::string& ptr) const
  {
    Eigen::MatrixXd m(n_, n_);
    for (std::size_t i = 0; i < n_; ++i) {
      for (std::size_t j = 0; j < n_; ++j) m(i, j) = m_[i * n_ + j];
    }
    if (n_ > 0) {
      Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(m, Eigen::EigenvaluesOnly);
      double const smallest = eig.eigenvalues().minCoeff();
      if (smallest < -1e-10) {
        rd_.fail(ptr, "the correlation matrix is not positive semi-definite (smallest eigenvalue " +
                          reader::show(smallest) + ")");
      }
    }
    return m_;
  }

 private:
  const reader& rd_;
  const std::vector<asset>& assets_;
  std::size_t n_;
  std::vector<double> m_;
  std::vector<bool> given_;
};

std::vector<double> read_correlation(const reader& rd, const json& v, const std::string& ptr,
                                     const std::vector<asset>& assets)
{
  correlation_builder b(rd, assets);
  rd.object(v, ptr);
  if (v.contains("names") || v.contains("matrix")) {
    rd.expect_keys(v, ptr, {"names", "matrix"});
    const json& names = rd.member(v, ptr, "names");
    const json& rows = rd.member(v, ptr, "matrix");
    if (!names.is_array()) rd.fail(ptr + "/names", "expected an array of asset names");
    if (!rows.is_array() || rows.size() != names.size()) {
      rd.fail(ptr + "/matrix", "expected " + std::to_string(names.size()) + " rows, one per name");
    }
    std::vector<std::size_t> idx;
    for (std::size_t i = 0; i < names.size(); ++i) {
      std::string const np = ptr + "/names/" + std::to_string(i);
      if (!names[i].is_string()) rd.fail(np, "expected an asset name, got " + reader::type_of(names[i]));
      idx.push_back(b.index(names[i].get<std::string>(), np));
    }
    for (std::size_t i = 0; i < idx.size(); ++i) {
      std::string const rp = ptr + "/matrix/" + std::to_string(i);
      if (!rows[i].is_array() || rows[i].size() != idx.size()) {
        rd.fail(rp, "expected a row of " + std::to_string(idx.size()) + " numbers");
      }
      for (std::size_t j = 0; j < idx.size(); ++j) {
        std::string const cp = rp + "/" + std::to_string(j);
        double const rho = rd.number_in(rows[i][j], cp, -1.0, 1.0, "in [-1, 1]");
        double const mirror = rd.number(rows[j][i], ptr + "/matrix/" + std::to_string(j) + "/" + std::to_string(i));
        if (std::abs(rho - mirror) > 1e-12) rd.fail(cp, "the matrix is not symmetric");
        if (j >= i) b.set(idx[i], idx[j], rho, cp);
      }
    }
    return b.finish(ptr);
  }
  for (auto const& [key, value] : v.items()) {
    if (!key.empty() && key.front() == '_') continue;
    std::string const kp = ptr + "/" + key;
    auto const comma = key.find(',');
    if (comma == std::string::npos) rd.fail(kp, "expected a pair key \"A,B\", got '" + key + "'");
    std::size_t const i = b.index(key.substr(0, comma), kp);
    std::size_t const j = b.index(key.substr(comma + 1), kp);
    b.set(i, j, rd.number_in(value, kp, -1.0, 1.0, "in [-1, 1]"), kp);
  }
  return b.finish(ptr);
}

}  // namespace

market_data parse_market(std::string_view text, const std::string& source_name)
{
  json root;
  try {
    root = json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    auto const pos = detail::position_of(text, e.byte > 0 ? e.byte - 1 : 0);
    std::string what = e.what();
    if (auto const at = what.find("syntax error"); at != std::string::npos) what = what.substr(at);
    throw input_error({source_name, pos.line, pos.column}, "invalid JSON: " + what);
  } catch (const json::out_of_range& e) {
    // A number beyond double's range ("1e400"): nlohmann reports the token, not where it is,
    // so point at its first occurrence. Found by the market fuzzer (tests/fuzz).
    std::string const what = e.what();
    std::size_t byte = 0;
    if (auto const open = what.find('\''), close = what.rfind('\''); open != std::string::npos && close > open) {
      if (auto const at = text.find(what.substr(open + 1, close - open - 1)); at != std::string_view::npos) byte = at;
    }
    auto const pos = detail::position_of(text, byte);
    auto const from = what.find("number overflow");
    throw input_error(
        {source_name, pos.line, pos.column},
        "invalid JSON: " + (from != std::string::npos ? what.substr(from) : what) + " (beyond double's range)");
  }
  reader const rd(text, source_name);
  rd.object(root, "");
  rd.expect_keys(root, "", {"rate", "discount_curve", "assets", "correlation"});

  rate_curve discount;
  bool const flat = root.contains("rate");
  bool const curve = root.contains("discount_curve");
  if (flat == curve) {
    rd.fail("", flat ? "give either 'rate' or 'discount_curve', not both"
                     : "missing the discount curve: give 'rate' or 'discount_curve'");
  }
  if (flat) discount = rate_curve::flat(rd.number(root["rate"], "/rate"));
  else {
    auto [t, r] = rd.pillars(root["discount_curve"], "/discount_curve", "zero_rates");
    discount = rate_curve(std::move(t), std::move(r));
  }

  std::vector<asset> assets;
  const json& all = rd.object(rd.member(root, "", "assets"), "/assets");
  for (auto const& [name, value] : all.items()) {
    assets.push_back(read_asset(rd, name, value, "/assets/" + name, discount));
  }
  std::vector<double> corr;
  if (root.contains("correlation")) {
    corr = read_correlation(rd, root["correlation"], "/correlation", assets);
  } else {
    corr.assign(assets.size() * assets.size(), 0.0);
    for (std::size_t i = 0; i < assets.size(); ++i) corr[i * assets.size() + i] = 1.0;
  }
  return market_data(std::move(discount), std::move(assets), std::move(corr), source_name);
}

market_data read_market_file(const std::string& path)
{
  return parse_market(detail::read_file_text(path, "market"), path);
}

}  // namespace mcprice
