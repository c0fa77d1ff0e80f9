#pragma once
// From a validated asian / barrier / touch / lookback trade on a GBM asset to the path kernel's record and
// its time grid: the fixing times, plus `steps` equal steps when a barrier is monitored
// continuously, each step exact under the term structures.
#include "mcprice/kernels/greeks/path_greeks.hpp"
#include "mcprice/kernels/models/heston_path.hpp"
#include "mcprice/kernels/models/path_gbm.hpp"
#include "mcprice/market.hpp"
#include "mcprice/portfolio.hpp"
#include "mcprice/settings.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace mcprice::detail {

// Real: the path precision of the records (float, or double for --precision double).
template <typename Real>
struct basic_path_job {
  basic_path_gbm_trade<Real> kernel;  // first_block and first_step are set by the batcher
  std::vector<basic_path_step<Real>> steps;
  std::vector<basic_path_greek_step<Real>> greek_steps;  // with Greeks: parallel to steps (Asians' are read)
  double scale;                                          // P(0,T) x notional
  std::int64_t paths;
};
using path_job = basic_path_job<float>;
using path_job_f64 = basic_path_job<double>;

template <typename Real>
struct basic_heston_job {
  basic_heston_trade<Real> kernel;  // first_block and first_step are set by the batcher
  std::vector<basic_heston_step<Real>> steps;
  double scale;
  std::int64_t paths;
};
using heston_job = basic_heston_job<float>;
using heston_job_f64 = basic_heston_job<double>;

// A path trade's time grid: the positive fixing times, `steps` equal steps when a barrier is
// monitored continuously (or always, for Heston), and maturity.
struct path_grid {
  std::vector<double> fixings;  // as the trade defines them, a leading 0 included
  bool spot_fixing{false};
  std::vector<double> times;
  std::vector<std::uint8_t> marks;  // per time: fixing_mark, knock_in_mark (path_gbm.hpp)

  [[nodiscard]] bool is_fixing(std::size_t i) const { return (marks[i] & fixing_mark) != 0; }
};

// Each step's fixing byte from the grid's marks (the first times.size() steps).
template <typename Step>
void mark_steps(const path_grid& g, std::vector<Step>& steps)
{
  for (std::size_t i = 0; i < g.marks.size(); ++i) steps[i].fixing = g.marks[i];
}

// An autocallable's ln(knock-in level / initial level) for the path state, given its performance
// today. A continuously watched knock-in that today's performance has already reached is +infinity:
// every path is knocked in at its first step (the bridge is not asked for a path that starts
// beyond the level).
template <typename Real>
Real knock_in_log_level(const trade& t, double performance_today)
{
  if (!t.ki_barrier) return Real(0);
  bool const knocked = t.ki_monitoring == knock_in_monitoring::continuous && performance_today <= *t.ki_barrier;
  return knocked ? std::numeric_limits<Real>::infinity() : static_cast<Real>(std::log(*t.ki_barrier));
}

// An autocallable's observation levels, ln(barrier) per observation (the last one's call level
// +infinity: nothing is called at maturity), appended after the trade's rows in its model's
// step table; the record points at them.
template <typename Step, typename Record>
void append_observation_rows(const trade& t, std::vector<Step>& steps, Record& k)
{
  using real = decltype(k.spot);
  k.observation_row = static_cast<std::int32_t>(steps.size());
  std::size_t const n = t.observation_times.size();
  k.tally_slots = tally_slots_of(static_cast<int>(n));
  auto const level = [](const std::vector<double>& v, std::size_t j, double otherwise) {
    return v.empty() ? otherwise : v[v.size() == 1 ? 0 : j];
  };
  for (std::size_t j = 0; j < n; ++j) {
    double const call = level(t.autocall_barrier, j, 1.0);
    double const coupon = level(t.coupon_barrier, j, call);
    Step row{};
    set_observation_levels(row, j + 1 == n ? std::numeric_limits<real>::infinity() : static_cast<real>(std::log(call)),
                           static_cast<real>(std::log(coupon)));
    steps.push_back(row);
  }
}

path_grid make_path_grid(const trade& t, const engine_options& opt, bool uniform_steps);
// A GBM asset's exact log-normal step to each of the grid's times (drift to the forward less the
// jumps' compensator, vol from the total variance, the payment ratio and the step's marks).
template <typename Real>
std::vector<basic_path_step<Real>> gbm_path_steps(const market_data& market, const asset& a, const path_grid& g,
                                                  double df_T);
template <typename Real>
basic_path_gbm_trade<Real> make_path_record(const trade& t, const asset& a, const path_grid& g,
                                            const engine_options& opt, std::int64_t& paths);

// Per step: how its variance responds to a parallel shift h of the Black vol curve
// (d dw_k/dh = 2 (sigma(t_k) t_k - sigma(t_{k-1}) t_{k-1}), sigma(t) t = sqrt(w(t) t)), its time
// and the trade's zero rate to expiry.
template <typename Real = float>
std::vector<basic_path_greek_step<Real>> make_greek_steps(const asset& a, const std::vector<double>& times,
                                                          double rate);

// The fixing times of a trade (fixing_times, else `fixings` equal steps ending at maturity, else
// `steps` of them); a leading 0 means today's spot is a fixing.
std::vector<double> fixing_times_of(const trade& t, std::int64_t default_steps);

// `a` is the trade's underlying, already looked up in `market`. In double (Real = double) a
// GBM vanilla or digital is a one-step path trade (product european).
template <typename Real>
basic_path_job<Real> make_path_job(const trade& t, const asset& a, const market_data& market,
                                   const engine_options& opt);
// Any single-asset product on a Heston asset: the path record on a uniform grid.
template <typename Real>
basic_heston_job<Real> make_heston_job(const trade& t, const asset& a, const market_data& market,
                                       const engine_options& opt);

}  // namespace mcprice::detail
