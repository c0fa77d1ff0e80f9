#include "products/trade_validation.hpp"

#include "io/text_values.hpp"
#include "mcprice/kernels/exercise/early_exercise.hpp"

#include <algorithm>
#include <cmath>

namespace mcprice::detail {
namespace {

bool needs_strike(const trade& t)
{
  switch (t.product) {
    case product_kind::touch:
    case product_kind::autocallable:  // a fraction of the initial level, default 1
    case product_kind::cliquet:
      return false;
    case product_kind::asian:
    case product_kind::lookback:
      return t.strike_type == strike_kind::fixed;
    default:
      return true;
  }
}

// A list of one value, or one per observation, each at least `low` (above it when `strict`).
std::string check_levels(const std::string& name, const std::vector<double>& v, std::size_t observations, double low,
                         bool strict)
{
  if (v.size() > 1 && v.size() != observations) {
    return name + " has " + std::to_string(v.size()) + " entries for " + std::to_string(observations) +
           " observation_times (give one, or one per observation)";
  }
  for (double x : v) {
    if (strict ? !(x > low) : !(x >= low))
      return name + " entry " + shown(x) + " must be " + (strict ? "> " : ">= ") + shown(low);
  }
  return {};
}

std::string check_autocallable(const trade& t)
{
  auto const& obs = t.observation_times;
  if (obs.empty()) return "observation_times is missing for an autocallable";
  for (std::size_t i = 0; i < obs.size(); ++i) {
    if (!(obs[i] > 0.0) || obs[i] > t.maturity || (i > 0 && obs[i] <= obs[i - 1])) {
      return "observation_times entry " + shown(obs[i]) + " must be ascending within (0, maturity]";
    }
  }
  if (std::abs(obs.back() - t.maturity) > 1e-12 * std::max(1.0, t.maturity)) {
    return "observation_times' last entry " + shown(obs.back()) + " must equal maturity " + shown(t.maturity);
  }
  for (auto const& why : {check_levels("autocall_barrier", t.autocall_barrier, obs.size(), 0.0, true),
                          check_levels("coupon_barrier", t.coupon_barrier, obs.size(), 0.0, false)}) {
    if (!why.empty()) return why;
  }
  if (!(t.coupon >= 0.0)) return "coupon " + shown(t.coupon) + " must be >= 0";
  if (t.strike && !(*t.strike > 0.0))
    return "strike " + shown(*t.strike) + " must be > 0 (a fraction of the initial level)";
  if (t.ki_barrier && !(*t.ki_barrier > 0.0)) return "ki_barrier " + shown(*t.ki_barrier) + " must be > 0";
  if (t.ki_barrier && t.ki_monitoring == knock_in_monitoring::discrete && !t.fixings && t.fixing_times.empty()) {
    return "ki_monitoring discrete needs fixings or fixing_times";
  }
  if (!t.initial_levels.empty() && t.initial_levels.size() != t.underlyings.size()) {
    return "initial_levels has " + std::to_string(t.initial_levels.size()) + " entries for " +
           std::to_string(t.underlyings.size()) + " underlyings";
  }
  for (double l : t.initial_levels) {
    if (!(l > 0.0)) return "initial_levels entry " + shown(l) + " must be > 0";
  }
  return {};
}

std::string check_cliquet(const trade& t)
{
  if (!t.fixings && t.fixing_times.empty()) return "a cliquet needs fixings or fixing_times (its reset times)";
  if (!t.fixing_times.empty() && std::abs(t.fixing_times.back() - t.maturity) > 1e-12 * std::max(1.0, t.maturity)) {
    return "fixing_times' last entry " + shown(t.fixing_times.back()) + " must equal maturity " + shown(t.maturity) +
           " (the last reset)";
  }
  if (t.local_floor && t.local_cap && *t.local_floor > *t.local_cap) {
    return "local_floor " + shown(*t.local_floor) + " is above local_cap " + shown(*t.local_cap);
  }
  if (t.global_floor && t.global_cap && *t.global_floor > *t.global_cap) {
    return "global_floor " + shown(*t.global_floor) + " is above global_cap " + shown(*t.global_cap);
  }
  return {};
}

// `first` receives the market index of the first underlying once it is known to exist.
std::string check_fields(const trade& t, const market_data& market, std::size_t& first)
{
  if (!(t.maturity > 0.0)) return "maturity " + shown(t.maturity) + " must be > 0";
  bool const touch = t.product == product_kind::touch;
  bool const touch_type = t.type == option_type::one_touch || t.type == option_type::no_touch;
  if (touch != touch_type) {
    return std::string("type ") + std::string(to_string(t.type)) + " does not fit product " +
           std::string(to_string(t.product)) + (touch ? " (use one-touch or no-touch)" : " (use call or put)");
  }
  if (t.underlyings.empty()) return "underlying is missing";
  if (!multi_asset(t.product) && t.product != product_kind::autocallable && t.underlyings.size() != 1) {
    return "underlying lists " + std::to_string(t.underlyings.size()) + " assets but product " +
           std::string(to_string(t.product)) + " takes one";
  }
  if (t.product == product_kind::spread && t.underlyings.size() != 2) {
    return "underlying lists " + std::to_string(t.underlyings.size()) + " assets but a spread takes two";
  }
  // A basket, best-of or worst-of of one asset is that asset's vanilla: allowed.
  for (auto const& name : t.underlyings) {
    auto const index = market.find(name);
    if (!index) return "underlying '" + name + "' is not in the market file";
    if (&name == &t.underlyings.front()) first = *index;
  }
  if (t.underlyings.size() > 16) {
    return "underlying lists " + std::to_string(t.underlyings.size()) + " assets; at most 16 are supported";
  }
  if (!t.weights.empty() && t.weights.size() != t.underlyings.size()) {
    return "weights has " + std::to_string(t.weights.size()) + " entries for " + std::to_string(t.underlyings.size()) +
           " underlyings";
  }
  if (needs_strike(t) && !t.strike) return "strike is missing";
  // A spread's strike may be negative (S1 - S2 + 5 is a spread struck at -5); every other
  // payoff's strike is a price level.
  if (t.strike && *t.strike < 0.0 && t.product != product_kind::spread) {
    return "strike " + shown(*t.strike) + " must be >= 0";
  }
  if (t.paths && *t.paths < 2) return "paths " + std::to_string(*t.paths) + " must be >= 2";
  if (t.steps && *t.steps < 1) return "steps " + std::to_string(*t.steps) + " must be >= 1";
  if (t.fixings && *t.fixings < 1) return "fixings " + std::to_string(*t.fixings) + " must be >= 1";
  for (std::size_t i = 0; i < t.fixing_times.size(); ++i) {
    double const ft = t.fixing_times[i];
    if (ft < 0.0 || ft > t.maturity || (i > 0 && ft <= t.fixing_times[i - 1])) {
      return "fixing_times entry " + shown(ft) + " must be ascending within [0, maturity]";
    }
  }
  bool const needs_fixings = t.product == product_kind::asian ||
                             ((t.product == product_kind::barrier || touch || t.product == product_kind::lookback) &&
                              t.monitoring == monitoring_kind::discrete);
  if (needs_fixings && !t.fixings && t.fixing_times.empty()) {
    return std::string(t.product == product_kind::asian ? "an asian" : "discrete monitoring") +
           " needs fixings or fixing_times";
  }
  if ((t.product == product_kind::barrier || touch) && !t.barrier) return "barrier is missing";
  if (t.barrier && !(*t.barrier > 0.0)) return "barrier " + shown(*t.barrier) + " must be > 0";
  if ((t.product == product_kind::barrier || touch) && !t.barrier_type) return "barrier_kind is missing";
  if (t.barrier_type) {
    bool const direction_only = *t.barrier_type == barrier_kind::up || *t.barrier_type == barrier_kind::down;
    if (touch != direction_only) {
      return "barrier_kind " + std::string(to_string(*t.barrier_type)) + " does not fit product " +
             std::string(to_string(t.product));
    }
  }
  if (t.barrier && t.barrier_type && !t.underlyings.empty()) {
    double const spot = market.assets()[first].spot;
    barrier_kind const b = *t.barrier_type;
    bool const up = b == barrier_kind::up || b == barrier_kind::up_in || b == barrier_kind::up_out;
    if (up ? !(*t.barrier > spot) : !(*t.barrier < spot)) {
      return "barrier " + shown(*t.barrier) + " is " + (up ? "not above" : "not below") + " spot " + shown(spot) +
             " for " + (t.product == product_kind::touch ? "a touch with barrier_kind " : "a barrier of kind ") +
             std::string(to_string(b));
    }
  }
  if (t.running_extreme && t.product == product_kind::lookback && !t.underlyings.empty()) {
    double const spot = market.assets()[first].spot;
    bool const tracks_max = (t.strike_type == strike_kind::floating) != (t.type == option_type::call);
    if (!(*t.running_extreme > 0.0) || (tracks_max ? *t.running_extreme < spot : *t.running_extreme > spot)) {
      return "running_extreme " + shown(*t.running_extreme) + " is " + (tracks_max ? "below" : "above") + " spot " +
             shown(spot) + " for a lookback that tracks the " + (tracks_max ? "maximum" : "minimum");
    }
  }
  if (t.exercise == exercise_style::bermudan && !t.exercise_dates)
    return "exercise_dates is missing for bermudan exercise";
  if (t.exercise_dates && *t.exercise_dates < 1) return "exercise_dates must be >= 1";
  if (t.product == product_kind::autocallable) return check_autocallable(t);
  if (t.product == product_kind::cliquet) return check_cliquet(t);
  return {};
}

}  // namespace

bool multi_asset(product_kind p)
{
  return p == product_kind::basket || p == product_kind::best_of || p == product_kind::worst_of ||
         p == product_kind::spread;
}

std::string validate_trade(const trade& t, const market_data& market, std::size_t* first_underlying)
{
  std::size_t first = 0;
  std::string const why = check_fields(t, market, first);
  if (why.empty() && first_underlying != nullptr) *first_underlying = first;
  return why.empty() ? why : "trade " + t.id + ": " + why;
}

std::string unsupported_feature(const trade& t, const market_data& market)
{
  std::string why;
  switch (t.product) {
    case product_kind::vanilla:
    case product_kind::digital:
    case product_kind::asian:
    case product_kind::barrier:
    case product_kind::touch:
    case product_kind::lookback:
    case product_kind::basket:
    case product_kind::best_of:
    case product_kind::worst_of:
    case product_kind::spread:
    case product_kind::cliquet:
      break;
    case product_kind::autocallable:
      break;
    default:
      why = "product " + std::string(to_string(t.product)) + " is not supported yet";
  }
  bool const early = t.exercise != exercise_style::european;
  if (why.empty() && early && t.product != product_kind::vanilla && !multi_asset(t.product)) {
    why = "exercise " + std::string(to_string(t.exercise)) + " is not supported for product " +
          std::string(to_string(t.product)) + " (vanilla and multi-asset products only)";
  }
  if (why.empty() && early && t.underlyings.size() > static_cast<std::size_t>(max_exercise_assets)) {
    why = "exercise " + std::string(to_string(t.exercise)) + " takes at most " + std::to_string(max_exercise_assets) +
          " underlyings, not " + std::to_string(t.underlyings.size());
  }
  if (why.empty() && multi_asset(t.product)) {
    // Heston and local-vol assets price through the early-exercise paths (a European as one
    // date): at most max_exercise_assets of them.
    std::string heston;
    std::string gbm;
    bool walked = false;
    for (auto const& name : t.underlyings) {
      model_kind const m = market.assets()[*market.find(name)].model;
      if (m == model_kind::heston) heston = name;
      if (m == model_kind::gbm) gbm = name;
      walked = walked || m != model_kind::gbm;
    }
    // Mixed models price as Heston baskets, a GBM asset stepping log-normally (make_exercise_job);
    // least squares on such paths would regress on a variance that never moves.
    if (!heston.empty() && !gbm.empty() && early) {
      why = "assets " + heston + " (heston) and " + gbm + " (gbm): exercise " + std::string(to_string(t.exercise)) +
            " on mixed models is not supported yet (European exercise is)";
    } else if (walked && t.underlyings.size() > static_cast<std::size_t>(max_exercise_assets)) {
      why = "multi-asset products on heston or local_vol assets take at most " + std::to_string(max_exercise_assets) +
            " underlyings, not " + std::to_string(t.underlyings.size());
    }
  }
  return why.empty() ? why : "trade " + t.id + ": " + why;
}

}  // namespace mcprice::detail
