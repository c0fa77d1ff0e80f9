#pragma once
// From a validated asian / barrier / touch / lookback trade on a GBM asset to the path kernel's record and
// its time grid: the fixing times, plus `steps` equal steps when a barrier is monitored
// continuously, each step exact under the term structures.
#include "mcprice/kernels/models/heston_path.hpp"
#include "mcprice/kernels/models/path_gbm.hpp"
#include "mcprice/kernels/greeks/path_greeks.hpp"
#include "mcprice/market.hpp"
#include "mcprice/portfolio.hpp"
#include "mcprice/settings.hpp"

#include <string>
#include <vector>

namespace mcprice::detail {

// Real: the path precision of the records (float, or double for --precision double).
template <typename Real>
struct basic_path_job {
  basic_path_gbm_trade<Real> kernel;  // first_block and first_step are set by the batcher
  std::vector<basic_path_step<Real>> steps;
  std::vector<path_greek_step> greek_steps;  // with Greeks (float only): parallel to steps (Asians' are read)
  double scale;                              // P(0,T) x notional
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
  std::vector<bool> is_fixing;
};

path_grid make_path_grid(const trade& t, const engine_options& opt, bool uniform_steps);
template <typename Real>
basic_path_gbm_trade<Real> make_path_record(const trade& t, const asset& a, const path_grid& g,
                                            const engine_options& opt, std::int64_t& paths);

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
