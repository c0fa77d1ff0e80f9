#include "load_stream.hpp"

#include "mcprice/kernels/rng/trade_key.hpp"

#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace mcprice::load {
namespace {

// Uniform in [0, 1) from (seed, job, draw): 53 bits of SplitMix64.
class draws {
 public:
  draws(std::uint64_t seed, std::size_t job) : base_(rng::mix64(seed ^ rng::mix64(job))) {}
  double next() { return static_cast<double>(rng::mix64(base_ + ++count_) >> 11) * 0x1.0p-53; }
  std::size_t pick(std::size_t n) { return std::min(n - 1, static_cast<std::size_t>(next() * static_cast<double>(n))); }

 private:
  std::uint64_t base_;
  std::uint64_t count_{0};
};

trade make_trade(draws& d, const std::vector<const asset*>& assets, const std::string& id, std::int64_t paths)
{
  trade t;
  t.id = id;
  std::size_t const ia = d.pick(assets.size());
  const asset& a = *assets[ia];
  t.underlyings = {a.name};
  t.type = d.next() < 0.5 ? option_type::call : option_type::put;
  t.maturity = 0.25 + 1.75 * d.next();
  t.strike = a.spot * (0.8 + 0.4 * d.next());
  t.paths = paths;
  switch (d.pick(assets.size() > 1 ? 5 : 4)) {
    case 0:
      t.product = product_kind::vanilla;
      break;
    case 1:
      t.product = product_kind::digital;
      break;
    case 2:
      t.product = product_kind::asian;
      t.fixings = 12;
      break;
    case 3: {
      t.product = product_kind::barrier;
      bool const up = t.type == option_type::call;
      t.barrier = a.spot * (up ? 1.3 : 0.7);
      t.barrier_type = up ? barrier_kind::up_out : barrier_kind::down_out;
      t.steps = 64;
      break;
    }
    default: {
      t.product = product_kind::basket;
      const asset& b = *assets[(ia + 1 + d.pick(assets.size() - 1)) % assets.size()];  // another asset
      t.underlyings.push_back(b.name);
      t.strike = 0.5 * (a.spot + b.spot) * (0.8 + 0.4 * d.next());
      break;
    }
  }
  return t;
}

}  // namespace

std::vector<size_class> default_mix()
{
  return {{"small", 0.85, 2, 16384}, {"medium", 0.13, 8, 65536}, {"large", 0.02, 4, 1048576}};
}

std::vector<job> make_stream(const stream_options& o, const market_data& market)
{
  std::vector<const asset*> assets;
  for (auto const& a : market.assets()) {
    if (a.model == model_kind::gbm) assets.push_back(&a);
  }
  if (assets.empty()) throw std::invalid_argument("the load test needs at least one GBM asset in the market");
  if (!(o.rate > 0.0)) throw std::invalid_argument("the arrival rate must be > 0");
  double total = 0.0;
  for (auto const& c : o.mix) {
    if (!(c.weight >= 0.0) || c.trades < 1 || c.paths < 2) {
      throw std::invalid_argument("size class '" + c.name + "' needs weight >= 0, trades >= 1 and paths >= 2");
    }
    total += c.weight;
  }
  if (!(total > 0.0)) throw std::invalid_argument("the size mix has no positive weight");

  std::vector<job> out;
  out.reserve(o.jobs);
  double t = 0.0;
  auto const n = static_cast<double>(o.jobs);
  for (std::size_t i = 0; i < o.jobs; ++i) {
    draws d(o.seed, i);
    switch (o.pattern) {
      case arrival_pattern::steady:
        t = static_cast<double>(i) / o.rate;
        break;
      case arrival_pattern::bursts: {
        std::size_t const b = std::max<std::size_t>(1, o.burst_size);
        t = static_cast<double>(i / b * b) / o.rate;  // the same mean rate, b jobs at a time
        break;
      }
      case arrival_pattern::ramp:
        // The rate rises linearly from a quarter to 1.75x the mean over the stream.
        if (i > 0) t += 1.0 / (o.rate * (0.25 + 1.5 * static_cast<double>(i) / n));
        break;
    }
    double u = d.next() * total;
    std::size_t c = 0;
    while (c + 1 < o.mix.size() && u >= o.mix[c].weight) u -= o.mix[c++].weight;
    const size_class& cls = o.mix[c];
    job j{i, t, cls.name, {}, 0};
    j.book.source = "load-stream";
    for (int k = 0; k < cls.trades; ++k) {
      j.book.trades.push_back(make_trade(d, assets, "J" + std::to_string(i) + "-" + std::to_string(k), cls.paths));
      j.paths += cls.paths;
    }
    out.push_back(std::move(j));
  }
  return out;
}

arrival_pattern parse_pattern(const std::string& text)
{
  if (text == "steady") return arrival_pattern::steady;
  if (text == "bursts") return arrival_pattern::bursts;
  if (text == "ramp") return arrival_pattern::ramp;
  throw std::invalid_argument("arrival pattern '" + text + "': expected steady, bursts or ramp");
}

std::vector<size_class> parse_mix(const std::string& text)
{
  std::vector<size_class> mix;
  std::stringstream classes(text);
  std::string item;
  while (std::getline(classes, item, ',')) {
    std::stringstream fields(item);
    std::string name, weight, trades, paths;
    if (!std::getline(fields, name, ':') || !std::getline(fields, weight, ':') || !std::getline(fields, trades, ':') ||
        !std::getline(fields, paths, ':') || name.empty()) {
      throw std::invalid_argument("size class '" + item + "': expected name:weight:trades:paths");
    }
    // Whole numbers are checked against their types before the conversion (a paths of 1e300
    // converted to int64 is undefined: a fuzz find); the mix's own rules (weight >= 0, trades
    // >= 1, paths >= 2) are checked where the stream is made.
    auto const number = [&](const std::string& field, double most) {
      std::size_t used = 0;
      double v = std::numeric_limits<double>::quiet_NaN();
      try {
        v = std::stod(field, &used);
      } catch (const std::logic_error&) {
        used = 0;
      }
      bool const whole = std::floor(v) == v && std::fabs(v) <= most;
      if (used == 0 || used != field.size() || !std::isfinite(v) || (most > 0.0 && !whole)) {
        throw std::invalid_argument("size class '" + item + "': expected name:weight:trades:paths with " +
                                    (most > 0.0 ? "whole numbers of trades and paths" : "a finite weight"));
      }
      return v;
    };
    double const w = number(weight, 0.0);
    auto const t = static_cast<int>(number(trades, std::numeric_limits<int>::max()));
    auto const n = static_cast<std::int64_t>(number(paths, 9007199254740992.0));  // 2^53
    mix.push_back({name, w, t, n});
  }
  if (mix.empty()) throw std::invalid_argument("the size mix is empty");
  return mix;
}

}  // namespace mcprice::load
