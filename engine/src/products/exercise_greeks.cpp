#include "products/exercise_greeks.hpp"

#include "runtime/parallel_for.hpp"

#include "mcprice/kernels/greeks/basket_greeks.hpp"
#include "mcprice/kernels/greeks/heston_greeks.hpp"
#include "mcprice/kernels/greeks/path_greeks.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace mcprice::detail {
namespace {

constexpr double spot_bump = scenario_spot_bump;
constexpr double vol_bump = scenario_vol_bump;
constexpr double rate_bump = scenario_rate_bump;
constexpr double correlation_bump = basket_correlation_bump;
constexpr double day = 1.0 / 365.0;

struct bump {
  std::vector<double> spot_factor;  // per underlying
  std::vector<double> vol_shift;    // per underlying
  double rate_shift{0.0};
  double correlation_shift{0.0};
  double maturity_shift{0.0};
};

rate_curve shifted(const rate_curve& c, double h)
{
  if (c.is_flat()) return rate_curve::flat(c.zero_rate(0.0) + h);
  std::vector<double> rates = c.pillar_rates();
  for (double& r : rates) r += h;
  return {c.pillar_times(), rates};
}

vol_curve shifted(const vol_curve& c, double h)
{
  if (c.pillar_times().empty()) return vol_curve::flat(std::max(0.0, c.vol(1.0) + h));
  std::vector<double> vols = c.pillar_vols();
  for (double& v : vols) v = std::max(0.0, v + h);
  return {c.pillar_times(), vols};
}

double shifted_root(double v, double h)
{
  double const r = std::max(0.0, std::sqrt(std::max(v, 0.0)) + h);
  return r * r;
}

// The trade's underlyings alone (names kept), with the bump applied.
market_data local_market(const trade& t, const market_data& m, const bump& b)
{
  std::size_t const n = t.underlyings.size();
  std::vector<std::size_t> idx;
  std::vector<asset> assets;
  for (std::size_t i = 0; i < n; ++i) {
    idx.push_back(*m.find(t.underlyings[i]));
    asset a = m.assets()[idx.back()];
    a.spot *= b.spot_factor[i];
    if (b.vol_shift[i] != 0.0) {
      if (a.model == model_kind::heston) {
        a.heston.v0 = shifted_root(a.heston.v0, b.vol_shift[i]);
        a.heston.theta = shifted_root(a.heston.theta, b.vol_shift[i]);
      } else {
        a.vol = shifted(a.vol, b.vol_shift[i]);
      }
    }
    assets.push_back(std::move(a));
  }
  std::vector<double> corr(n * n);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      corr[i * n + j] = i == j ? 1.0 : std::clamp(m.correlation(idx[i], idx[j]) + b.correlation_shift, -1.0, 1.0);
    }
  }
  return {shifted(m.discount(), b.rate_shift), std::move(assets), std::move(corr), m.source()};
}

template <typename Real>
class plan_builder {
 public:
  plan_builder(const trade& t, const market_data& m, const engine_options& opt) : t_(t), m_(m), opt_(opt)
  {
    plan_.assets = t.underlyings.size();
    scenario(neutral());  // 0: the trade itself, then walking the trade's tables
    plan_.scenarios.front() = with_spots(plan_.scenarios.front(), t_, spots_of(neutral()));
  }

  [[nodiscard]] bump neutral() const
  {
    return {std::vector<double>(plan_.assets, 1.0), std::vector<double>(plan_.assets, 0.0)};
  }

  // Scenarios that move today's spots alone (the trade itself too) share the trade's tables
  // (with_spots): building and uploading a copy of its steps for each of them cost more than
  // the Greeks' kernels on a STAC-A2-style trade (docs/benchmarks.md).
  std::size_t scenario(const bump& b)
  {
    bool const spots_only = b.rate_shift == 0.0 && b.correlation_shift == 0.0 && b.maturity_shift == 0.0 &&
                            std::all_of(b.vol_shift.begin(), b.vol_shift.end(), [](double v) { return v == 0.0; });
    if (spots_only && !plan_.scenarios.empty()) {
      plan_.scenarios.push_back(with_spots(plan_.scenarios.front(), t_, spots_of(b)));
    } else if (plan_.scenarios.empty()) {
      plan_.scenarios.push_back(build(b));
    } else {
      // Built in take(), several at once: each builds its own steps (1,260 dates x 10 assets
      // of QE constants for the large STAC-A2-style trade: a third of its host preparation).
      plan_.scenarios.emplace_back();
      pending_.push_back({plan_.scenarios.size() - 1, b});
    }
    return plan_.scenarios.size() - 1;
  }

  // Today's spots under the bump, as local_market moves them.
  [[nodiscard]] std::vector<double> spots_of(const bump& b) const
  {
    std::vector<double> spots;
    for (std::size_t i = 0; i < plan_.assets; ++i) {
      spots.push_back(m_.assets()[*m_.find(t_.underlyings[i])].spot * b.spot_factor[i]);
    }
    return spots;
  }

  void greek(greek_slot slot, std::size_t index, std::vector<exercise_leg> legs, double denominator)
  {
    bool const spots_only = slot == greek_slot::delta || slot == greek_slot::gamma || slot == greek_slot::cross_gamma;
    plan_.greeks.push_back({slot, index, std::move(legs), denominator, spots_only});
  }

  std::size_t spots(std::size_t i, double fi, std::size_t j = 0, double fj = 1.0)
  {
    bump b = neutral();
    b.spot_factor[i] *= fi;
    b.spot_factor[j] *= fj;
    return scenario(b);
  }

  basic_exercise_greek_plan<Real> take()
  {
    // Each scenario is a function of its bump alone, built into its own slot: the same plan on
    // any number of threads.
    parallel_for(
        pending_.size(), [&](std::size_t k) { plan_.scenarios[pending_[k].first] = build(pending_[k].second); }, 1);
    pending_.clear();
    return std::move(plan_);
  }

 private:
  [[nodiscard]] basic_exercise_job<Real> build(const bump& b) const
  {
    trade t = t_;
    t.maturity += b.maturity_shift;
    return make_exercise_job<Real>(t, local_market(t_, m_, b), opt_);
  }

  const trade& t_;
  const market_data& m_;
  const engine_options& opt_;
  basic_exercise_greek_plan<Real> plan_;
  std::vector<std::pair<std::size_t, bump>> pending_;  // scenarios to build: (slot, bump)
};

}  // namespace

template <typename Real>
basic_exercise_greek_plan<Real> make_exercise_greeks(const trade& t, const market_data& market,
                                                     const engine_options& opt)
{
  plan_builder<Real> p(t, market, opt);
  std::size_t const n = t.underlyings.size();
  std::vector<double> spot(n);
  for (std::size_t i = 0; i < n; ++i) spot[i] = market.assets()[*market.find(t.underlyings[i])].spot;
  for (std::size_t i = 0; i < n; ++i) {
    std::size_t const up = p.spots(i, 1.0 + spot_bump);
    std::size_t const down = p.spots(i, 1.0 - spot_bump);
    double const h = spot_bump * spot[i];
    p.greek(greek_slot::delta, i, {{up, 1.0F}, {down, -1.0F}}, 2.0 * h);
    p.greek(greek_slot::gamma, i, {{up, 1.0F}, {0, -2.0F}, {down, 1.0F}}, h * h);
    bump v = p.neutral();
    v.vol_shift[i] = vol_bump;
    std::size_t const vu = p.scenario(v);
    v.vol_shift[i] = -vol_bump;
    std::size_t const vd = p.scenario(v);
    p.greek(greek_slot::vega, i, {{vu, 1.0F}, {vd, -1.0F}}, 2.0 * vol_bump);
  }
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = i + 1; j < n; ++j) {
      double const u = 1.0 + spot_bump;
      double const d = 1.0 - spot_bump;
      std::vector<exercise_leg> legs = {{p.spots(i, u, j, u), 1.0F},
                                        {p.spots(i, u, j, d), -1.0F},
                                        {p.spots(i, d, j, u), -1.0F},
                                        {p.spots(i, d, j, d), 1.0F}};
      p.greek(greek_slot::cross_gamma, i * n + j, std::move(legs), 4.0 * spot_bump * spot_bump * spot[i] * spot[j]);
    }
  }
  // (V(shift h) - V(shift -h)) / |2h| for one whole-trade shift.
  auto const central = [&p](greek_slot slot, double bump::*shift, double h) {
    bump b = p.neutral();
    b.*shift = h;
    std::size_t const up = p.scenario(b);
    b.*shift = -h;
    std::size_t const down = p.scenario(b);
    p.greek(slot, 0, {{up, 1.0F}, {down, -1.0F}}, 2.0 * std::abs(h));
  };
  if (n > 1) central(greek_slot::correlation_vega, &bump::correlation_shift, correlation_bump);
  central(greek_slot::rho, &bump::rate_shift, rate_bump);
  // Time passing shortens the maturity (a shift of -h); the exercise dates keep their count.
  central(greek_slot::theta, &bump::maturity_shift, -std::min(day, 0.25 * t.maturity));
  return p.take();
}

template <typename Real>
trade_greeks assemble_exercise_greeks(const basic_exercise_greek_plan<Real>& plan,
                                      const std::vector<greek_estimate>& values)
{
  trade_greeks g;
  g.method = greek_method::central_bumps;
  bool const multi = plan.assets > 1;
  if (multi) {
    g.deltas.resize(plan.assets);
    g.gammas.resize(plan.assets);
    g.vegas.resize(plan.assets);
  }
  std::size_t k = 0;
  for (auto const& greek : plan.greeks) {
    greek_estimate const& v = values[k++];
    switch (greek.slot) {
      case greek_slot::delta:
        (multi ? g.deltas[greek.index] : g.delta) = v;
        break;
      case greek_slot::gamma:
        (multi ? g.gammas[greek.index] : g.gamma) = v;
        break;
      case greek_slot::vega:
        (multi ? g.vegas[greek.index] : g.vega) = v;
        break;
      case greek_slot::cross_gamma:
        g.cross_gammas.push_back(v);
        break;
      case greek_slot::correlation_vega:
        g.correlation_vega = v;
        break;
      case greek_slot::rho:
        g.rho = v;
        break;
      case greek_slot::theta:
        g.theta = v;
        break;
    }
  }
  return g;
}

template <typename Real>
trade_greeks exercised_today_greeks(const basic_exercise_greek_plan<Real>& plan, double scale)
{
  std::vector<greek_estimate> values;
  for (auto const& greek : plan.greeks) {
    double v = 0.0;
    for (auto const& leg : greek.legs) v += leg.weight * std::max(0.0, plan.scenarios[leg.scenario].exercise_today);
    values.push_back({v * scale / greek.denominator, 0.0});
  }
  return assemble_exercise_greeks(plan, values);
}

template exercise_greek_plan make_exercise_greeks<float>(const trade&, const market_data&, const engine_options&);
template basic_exercise_greek_plan<double> make_exercise_greeks<double>(const trade&, const market_data&,
                                                                        const engine_options&);
template trade_greeks assemble_exercise_greeks(const exercise_greek_plan&, const std::vector<greek_estimate>&);
template trade_greeks assemble_exercise_greeks(const basic_exercise_greek_plan<double>&,
                                               const std::vector<greek_estimate>&);
template trade_greeks exercised_today_greeks(const exercise_greek_plan&, double);
template trade_greeks exercised_today_greeks(const basic_exercise_greek_plan<double>&, double);

}  // namespace mcprice::detail
