#include "products/path_setup.hpp"

#include "mcprice/geometric_asian.hpp"
#include "mcprice/kernels/greeks/heston_greeks.hpp"
#include "products/jump_terms.hpp"
#include "products/stream_keys.hpp"

#include <algorithm>
#include <cmath>

namespace mcprice::detail {
namespace {

bool monitored_continuously(const trade& t)
{
  if (t.product == product_kind::autocallable) {
    return t.ki_barrier && t.ki_monitoring == knock_in_monitoring::continuous;
  }
  bool const barrier_like =
      t.product == product_kind::barrier || t.product == product_kind::touch || t.product == product_kind::lookback;
  return barrier_like && t.monitoring == monitoring_kind::continuous;
}

// Times at which an autocallable checks its knock-in outside continuous monitoring.
std::vector<double> knock_in_times(const trade& t, const engine_options& opt)
{
  if (t.product != product_kind::autocallable || !t.ki_barrier) return {};
  if (t.ki_monitoring == knock_in_monitoring::maturity) return {t.maturity};
  if (t.ki_monitoring == knock_in_monitoring::discrete) return fixing_times_of(t, opt.steps);
  return {};
}

bool near(double a, double b) { return std::abs(a - b) <= 1e-12; }

bool listed(const std::vector<double>& v, double x)
{
  return std::any_of(v.begin(), v.end(), [&](double f) { return near(f, x); });
}

}  // namespace

template <typename Real>
std::vector<basic_path_greek_step<Real>> make_greek_steps(const asset& a, const std::vector<double>& times, double rate)
{
  std::vector<basic_path_greek_step<Real>> out;
  double prev_sigma_t = 0.0;
  double t_prev = 0.0;
  for (double ti : times) {
    double const sigma_t = std::sqrt(std::max(0.0, a.vol.total_variance(ti) * ti));
    double const d_dw = 2.0 * (sigma_t - prev_sigma_t);
    double const vol = std::sqrt(std::max(0.0, a.vol.total_variance(ti) - a.vol.total_variance(t_prev)));
    basic_path_greek_step<Real> g{};
    g.dvol = vol > 0.0 ? static_cast<Real>(d_dw / (2.0 * vol)) : Real(0);
    g.ddrift = static_cast<Real>(0.5 * d_dw);
    g.time = static_cast<Real>(ti);
    g.rate = static_cast<Real>(rate);
    out.push_back(g);
    prev_sigma_t = sigma_t;
    t_prev = ti;
  }
  return out;
}

namespace {

// Raw draws a path's Sobol point takes after its bridged normals: next_uint4 blocks of four, a
// Heston step's QE uniform four steps a block, a jump step's two draws two steps a block.
int uniform_draws(int steps, bool qe, bool jumps)
{
  return (qe ? 4 * ((steps + 3) / 4) : 0) + (jumps ? 4 * ((steps + 1) / 2) : 0);
}

// The autocallable's and cliquet's fields of a path record (path_gbm.hpp).
template <typename Real>
void set_structured_terms(const trade& t, const asset& a, basic_path_gbm_trade<Real>& k)
{
  Real const inf = std::numeric_limits<Real>::infinity();
  k.local_floor = t.local_floor ? static_cast<Real>(*t.local_floor) : -inf;
  k.local_cap = t.local_cap ? static_cast<Real>(*t.local_cap) : inf;
  k.global_floor = t.global_floor ? static_cast<Real>(*t.global_floor) : -inf;
  k.global_cap = t.global_cap ? static_cast<Real>(*t.global_cap) : inf;
  if (t.product != product_kind::autocallable) return;
  double const initial = t.initial_levels.empty() ? a.spot : t.initial_levels.front();
  k.log_barrier = static_cast<Real>(std::log(initial / a.spot));
  k.strike = static_cast<Real>(t.strike.value_or(1.0));
  k.rebate = static_cast<Real>(t.coupon);
  k.log_knock_in = knock_in_log_level<Real>(t, a.spot / initial);
  k.memory = t.memory ? 1 : 0;
}

}  // namespace

std::vector<double> fixing_times_of(const trade& t, std::int64_t default_steps)
{
  if (!t.fixing_times.empty()) return t.fixing_times;
  std::int64_t const n = t.fixings.value_or(t.steps.value_or(default_steps));
  std::vector<double> times;
  for (std::int64_t i = 1; i <= n; ++i) times.push_back(t.maturity * static_cast<double>(i) / static_cast<double>(n));
  return times;
}

path_grid make_path_grid(const trade& t, const engine_options& opt, bool uniform_steps)
{
  path_grid g;
  bool const continuous = monitored_continuously(t);
  bool const has_fixings = t.product == product_kind::asian || t.product == product_kind::cliquet ||
                           ((t.product == product_kind::barrier || t.product == product_kind::touch ||
                             t.product == product_kind::lookback) &&
                            !continuous);
  if (has_fixings) g.fixings = fixing_times_of(t, opt.steps);
  // A cliquet's first period starts from today's spot: a reset at 0 is that start.
  if (t.product == product_kind::autocallable) g.fixings = t.observation_times;
  if (t.product != product_kind::cliquet) g.spot_fixing = !g.fixings.empty() && g.fixings.front() == 0.0;
  std::vector<double> const knock_in = knock_in_times(t, opt);
  for (double f : g.fixings) {
    if (f > 0.0) g.times.push_back(f);
  }
  for (double f : knock_in) {
    if (f > 0.0) g.times.push_back(f);
  }
  if (continuous || uniform_steps) {
    std::int64_t const n = t.steps.value_or(opt.steps);
    for (std::int64_t i = 1; i <= n; ++i)
      g.times.push_back(t.maturity * static_cast<double>(i) / static_cast<double>(n));
  }
  g.times.push_back(t.maturity);
  std::sort(g.times.begin(), g.times.end());
  g.times.erase(
      std::unique(g.times.begin(), g.times.end(), [](double x, double y) { return std::abs(x - y) <= 1e-12; }),
      g.times.end());
  for (double ti : g.times) {
    g.marks.push_back(static_cast<std::uint8_t>((listed(g.fixings, ti) ? fixing_mark : 0) |
                                                (listed(knock_in, ti) ? knock_in_mark : 0)));
  }
  return g;
}

template <typename Real>
basic_path_gbm_trade<Real> make_path_record(const trade& t, const asset& a, const path_grid& g,
                                            const engine_options& opt, std::int64_t& paths)
{
  basic_path_gbm_trade<Real> k{};
  std::int64_t const requested = t.paths.value_or(opt.paths);
  k.antithetic = opt.antithetic ? 1 : 0;
  k.samples = opt.antithetic ? (requested + 1) / 2 : requested;
  paths = opt.antithetic ? 2 * k.samples : k.samples;
  k.steps = static_cast<std::int32_t>(g.times.size());
  k.spot = static_cast<Real>(a.spot);
  k.strike = static_cast<Real>(t.strike.value_or(0.0));
  k.log_barrier = t.barrier ? static_cast<Real>(std::log(*t.barrier / a.spot)) : Real(0);
  k.rebate = static_cast<Real>(t.product == product_kind::barrier ? t.rebate : t.payout);
  switch (t.product) {
    case product_kind::asian:
      k.product = path_product::asian;
      break;
    case product_kind::barrier:
      k.product = path_product::barrier;
      break;
    case product_kind::touch:
      k.product = path_product::touch;
      break;
    case product_kind::lookback:
      k.product = path_product::lookback;
      break;
    case product_kind::autocallable:
      k.product = path_product::autocallable;
      break;
    case product_kind::cliquet:
      k.product = path_product::cliquet;
      break;
    default:
      k.product = path_product::european;
  }
  k.call = (t.type == option_type::call || t.type == option_type::one_touch) ? 1 : 0;
  if (t.barrier_type) {
    barrier_kind const b = *t.barrier_type;
    k.up = (b == barrier_kind::up || b == barrier_kind::up_in || b == barrier_kind::up_out) ? 1 : 0;
    k.knock_in = (b == barrier_kind::up_in || b == barrier_kind::down_in) ? 1 : 0;
  }
  k.continuous = monitored_continuously(t) ? 1 : 0;
  // Knock-out rebates are paid at the hit; touches pay where pay_at says.
  k.pay_at_hit = t.product == product_kind::barrier ? 1 : (t.pay_at == payment_time::hit ? 1 : 0);
  k.geometric = t.averaging == averaging_kind::geometric ? 1 : 0;
  k.floating = t.strike_type == strike_kind::floating ? 1 : 0;
  k.spot_fixing = g.spot_fixing ? 1 : 0;
  k.fixings = static_cast<std::int32_t>(g.fixings.size());
  if (t.product == product_kind::lookback) {
    bool const floating = t.strike_type == strike_kind::floating;
    k.track_max = (floating != (t.type == option_type::call)) ? 1 : 0;  // floating put or fixed call
    k.log_extreme = t.running_extreme ? static_cast<Real>(std::log(*t.running_extreme / a.spot)) : Real(0);
    k.seasoned = t.running_extreme ? 1 : 0;
  }
  if (t.product == product_kind::digital) k.digital = t.digital == digital_kind::cash ? 1 : 2;
  set_structured_terms(t, a, k);
  k.jumps = jump_law_of<Real>(a);
  // A step draws one normal; a continuously monitored lookback a second (its extremum's place);
  // a jump step two raw draws.
  bool const extremum = k.product == path_product::lookback && k.continuous != 0;
  k.key = stream_key(t, opt, k.steps, extremum ? 2 : 1, uniform_draws(k.steps, false, jump_intensity(a) > 0.0));
  return k;
}

template <typename Real>
std::vector<basic_path_step<Real>> gbm_path_steps(const market_data& market, const asset& a, const path_grid& g,
                                                  double df_T)
{
  auto const log_forward = [&](double time) { return diffusion_log_forward(market, a, time); };
  std::vector<basic_path_step<Real>> steps;
  double t_prev = 0.0;
  for (std::size_t i = 0; i < g.times.size(); ++i) {
    double const ti = g.times[i];
    double const dw = a.vol.total_variance(ti) - a.vol.total_variance(t_prev);
    basic_path_step<Real> s{};
    s.drift = static_cast<Real>(log_forward(ti) - log_forward(t_prev) - 0.5 * dw);
    s.vol = static_cast<Real>(std::sqrt(std::max(0.0, dw)));
    s.hit_value = static_cast<Real>(market.discount().discount(ti) / df_T);
    s.fixing = g.marks[i];
    steps.push_back(s);
    t_prev = ti;
  }
  return steps;
}
template std::vector<path_step> gbm_path_steps<float>(const market_data&, const asset&, const path_grid&, double);
template std::vector<path_step_f64> gbm_path_steps<double>(const market_data&, const asset&, const path_grid&, double);

template <typename Real>
basic_path_job<Real> make_path_job(const trade& t, const asset& a, const market_data& market, const engine_options& opt)
{
  path_grid const g = make_path_grid(t, opt, false);
  double const df_T = market.discount().discount(t.maturity);
  basic_path_job<Real> job{};
  job.steps = gbm_path_steps<Real>(market, a, g, df_T);
  job.kernel = make_path_record<Real>(t, a, g, opt, job.paths);
  job.scale = df_T * t.notional;
  if (opt.greeks) job.greek_steps = make_greek_steps<Real>(a, g.times, -std::log(df_T) / t.maturity);
  bool const jumps = jump_intensity(a) > 0.0;
  if (jumps) {
    // The jump rows (path_gbm.hpp): step k's mean jump count; the Greek grid stays parallel.
    double t_prev = 0.0;
    for (double ti : g.times) {
      basic_path_step<Real> row{};
      row.drift = static_cast<Real>(a.jumps->intensity * (ti - t_prev));
      job.steps.push_back(row);
      t_prev = ti;
    }
    if (opt.greeks) job.greek_steps.resize(job.steps.size());
  }
  if (t.product == product_kind::autocallable) {
    append_observation_rows(t, job.steps, job.kernel);
    if (opt.greeks) job.greek_steps.resize(job.steps.size());
  }
  // The geometric Asian's closed form is GBM's: with jumps the control would bias the price.
  if (!jumps && opt.control_variates && t.product == product_kind::asian && t.averaging == averaging_kind::arithmetic) {
    job.kernel.control = 1;
    job.kernel.control_value =
        static_cast<Real>(geometric_asian_price(market, a, g.fixings, t.maturity, t.strike.value_or(0.0),
                                                t.type == option_type::call, t.strike_type == strike_kind::floating) /
                          df_T);
  }
  return job;
}

template <typename Real>
basic_heston_job<Real> make_heston_job(const trade& t, const asset& a, const market_data& market,
                                       const engine_options& opt)
{
  path_grid const g = make_path_grid(t, opt, true);
  auto const log_forward = [&](double time) { return diffusion_log_forward(market, a, time); };
  double const df_T = market.discount().discount(t.maturity);
  basic_heston_job<Real> job{};
  double t_prev = 0.0;
  for (std::size_t i = 0; i < g.times.size(); ++i) {
    double const ti = g.times[i];
    job.steps.push_back(make_heston_step<Real>(ti - t_prev, log_forward(ti) - log_forward(t_prev),
                                               market.discount().discount(ti) / df_T, g.is_fixing(i), a.heston.kappa,
                                               a.heston.theta, a.heston.xi, a.heston.rho));
    t_prev = ti;
  }
  mark_steps(g, job.steps);
  job.kernel.qe_regular =
      heston_qe_regular(static_cast<Real>(a.heston.xi), job.steps.data(), static_cast<int>(job.steps.size())) ? 1 : 0;
  if (opt.greeks) {
    // Theta's scenarios: the first step shortened and lengthened by the kernel's roll (the same
    // Real), the zero rate, yield and the model held (heston_greeks.hpp).
    double const t1 = g.times.front();
    double const eps = scenario_roll(static_cast<Real>(t1));
    for (double const dt : {t1 - eps, t1 + eps}) {
      job.steps.push_back(make_heston_step<Real>(dt, log_forward(t1) * dt / t1, market.discount().discount(t1) / df_T,
                                                 g.is_fixing(0), a.heston.kappa, a.heston.theta, a.heston.xi,
                                                 a.heston.rho));
    }
  }
  static_cast<basic_path_gbm_trade<Real>&>(job.kernel) = make_path_record<Real>(t, a, g, opt, job.paths);
  job.kernel.maturity = static_cast<Real>(t.maturity);
  job.kernel.rate = static_cast<Real>(-std::log(df_T) / t.maturity);
  job.kernel.v0 = static_cast<Real>(a.heston.v0);
  job.kernel.kappa = static_cast<Real>(a.heston.kappa);
  job.kernel.theta = static_cast<Real>(a.heston.theta);
  job.kernel.xi = static_cast<Real>(a.heston.xi);
  job.kernel.rho = static_cast<Real>(a.heston.rho);
  // Sobol dimensions (heston_path.hpp, heston_conditional.hpp): path products bridge the variance
  // and log-spot normals of a step (and a continuous lookback's third), then take a uniform a step
  // for the QE's exponential branch (and two a step for jumps); Europeans draw the variance alone,
  // one bridged normal a step (its uniform is N(-z)), and with jumps one block for the count.
  bool const conditional = job.kernel.product == path_product::european;
  bool const extremum = job.kernel.product == path_product::lookback && job.kernel.continuous != 0;
  bool const jumps = jump_intensity(a) > 0.0;
  int const factors = conditional ? 1 : (extremum ? 3 : 2);
  int const uniforms = conditional ? (jumps ? 4 : 0) : uniform_draws(job.kernel.steps, true, jumps);
  job.kernel.key = stream_key(t, opt, job.kernel.steps, factors, uniforms);
  if (t.product == product_kind::autocallable) append_observation_rows(t, job.steps, job.kernel);
  job.scale = df_T * t.notional;
  if (t.product == product_kind::digital && t.digital == digital_kind::cash) {
    job.kernel.rebate = Real(1);
    job.scale *= t.payout;
  }
  return job;
}

template std::vector<path_greek_step> make_greek_steps<float>(const asset&, const std::vector<double>&, double);
template std::vector<basic_path_greek_step<double>> make_greek_steps<double>(const asset&, const std::vector<double>&,
                                                                             double);
template path_job make_path_job<float>(const trade&, const asset&, const market_data&, const engine_options&);
template path_job_f64 make_path_job<double>(const trade&, const asset&, const market_data&, const engine_options&);
template heston_job make_heston_job<float>(const trade&, const asset&, const market_data&, const engine_options&);
template heston_job_f64 make_heston_job<double>(const trade&, const asset&, const market_data&, const engine_options&);

}  // namespace mcprice::detail
