#pragma once
// Path scratch of the two-phase routes of the one-sample-per-lane families (GBM path trades,
// Heston trades, multi-asset trades): block-major, then row, then lane, so a row is written and
// read coalesced; the replay of stored paths through the fused route's path state; and the lane
// that turns payoff scratch into canonical-block moments.
#include "mcprice/kernels/launch/canonical_blocks.cuh"
#include "mcprice/kernels/launch/family_ref.hpp"
#include "mcprice/kernels/launch/launch_target.hpp"
#include "mcprice/kernels/layout/sample_lanes.hpp"
#include "mcprice/kernels/models/heston_conditional.hpp"
#include "mcprice/kernels/models/path_gbm.hpp"

namespace mcprice::kernels::two_phase {

inline constexpr std::int64_t lanes = layout::samples_per_block(own_subsequence_normals);

// Row r of lane `lane` of block j (within the job).
__device__ __forceinline__ std::int64_t row_index(std::int64_t j, int rows, int r, int lane)
{
  return (j * rows + r) * lanes + lane;
}

// The sample of lane `lane` (one subsequence each, as on the fused route), or -1 past the trade.
template <typename Trade>
__device__ __forceinline__ std::int64_t sample_of(const Trade& t, std::int64_t block_in_trade, int lane)
{
  std::int64_t const group = layout::group_index(block_in_trade, 0, lane, own_subsequence_normals);
  return group < t.samples ? group : -1;
}

// Rows of a path sample: the log spots after each step of path a, then of path b (antithetic);
// the steps' integrated variances in the same order where the model makes them path-dependent
// (Heston); then the bridge normals of a continuously monitored lookback.
struct sample_rows {
  int steps;
  int paths;
  bool stored_variance;
  __device__ __forceinline__ int x(int path, int k) const { return path * steps + k; }
  __device__ __forceinline__ int var(int path, int k) const { return (paths + path) * steps + k; }
  __device__ __forceinline__ int u(int k) const { return (stored_variance ? 2 : 1) * paths * steps + k; }
};

// Model policies of the replay: where a step's variance comes from, and whether Europeans occur.
// (Real, here and below: the path precision; scratch holds values of it.)
// conditional_europeans: a European's rows hold its log spot's conditional mean and variance
// after each step (Heston: heston_conditional.hpp), not a path.
struct gbm_replay {
  static constexpr bool stored_variance = false;
  static constexpr bool europeans = true;  // a European with jumps is a one-step path
  static constexpr bool conditional_europeans = false;
  template <typename Real>
  __device__ __forceinline__ static Real variance(const basic_path_step<Real>& s, const Real*, std::int64_t)
  {
    return s.vol * s.vol;
  }
};
template <typename Step>
struct stored_replay {
  static constexpr bool stored_variance = true;
  static constexpr bool europeans = true;
  static constexpr bool conditional_europeans = true;
  template <typename Real>
  __device__ __forceinline__ static Real variance(const Step&, const Real* paths, std::int64_t at)
  {
    return paths[at];
  }
};

// Paths whose step variances depend on the path and whose Europeans are paths too (local vol).
template <typename Step>
struct stored_path_replay : stored_replay<Step> {
  static constexpr bool conditional_europeans = false;
};

// A sample's value from its stored rows, with the fused route's operations.
template <path_product Product, bool Antithetic, typename Model, typename Step, typename Real>
__device__ __forceinline__ Real replay(const basic_path_gbm_trade<Real>& t, const Step* grid, const Real* paths,
                                       int rows, std::int64_t j, int lane)
{
  bool const bridge_normals = Product == path_product::lookback && t.continuous;
  sample_rows const r{t.steps, Antithetic ? 2 : 1, Model::stored_variance};
  if constexpr (Model::conditional_europeans && Product == path_product::european) {
    auto const last = [&](int path) {
      int const k = t.steps - 1;
      return conditional_european_payoff(t, paths[row_index(j, rows, r.x(path, k), lane)],
                                         paths[row_index(j, rows, r.var(path, k), lane)]);
    };
    Real const up = last(0);
    if constexpr (!Antithetic) return up;
    else return Real(0.5) * (up + last(1));
  }
  const Step* steps = grid + t.first_step;
  auto a = basic_path_state<Real>::start(t);
  auto b = a;
  auto const levels = observation_rows_of(steps, t);
  for (int k = 0; k < t.steps; ++k) {
    Step const s = steps[k];
    Real const u = bridge_normals ? paths[row_index(j, rows, r.u(k), lane)] : Real(0);
    a.template observe<Product>(t, t.log_barrier, paths[row_index(j, rows, r.x(0, k), lane)],
                                Model::variance(s, paths, row_index(j, rows, r.var(0, k), lane)), s.fixing,
                                s.hit_value, u, levels);
    if constexpr (Antithetic) {
      b.template observe<Product>(t, t.log_barrier, paths[row_index(j, rows, r.x(1, k), lane)],
                                  Model::variance(s, paths, row_index(j, rows, r.var(1, k), lane)), s.fixing,
                                  s.hit_value, u, levels);
    }
  }
  Real const up = a.template settle<Product>(t);
  if constexpr (!Antithetic) return up;
  else return Real(0.5) * (up + b.template settle<Product>(t));
}

// Phase 2 for path samples: each lane's value from its rows into payoff scratch.
template <typename Model, typename Step, typename Real = float>
struct replay_lane {
  const Step* grid;
  const Real* paths;
  int rows;
  Real* payoffs;
  std::int64_t block_begin;

  template <typename Trade>
  __device__ __forceinline__ void operator()(const Trade& t, std::int64_t block_in_trade, std::int64_t b,
                                             int lane) const
  {
    if (sample_of(t, block_in_trade, lane) < 0) return;
    std::int64_t const j = b - block_begin;
    payoffs[j * lanes + lane] = with_path_product<Model::europeans>(t.product, [&](auto product) {
      constexpr path_product p = decltype(product)::value;
      return t.antithetic ? replay<p, true, Model, Step, Real>(t, grid, paths, rows, j, lane)
                          : replay<p, false, Model, Step, Real>(t, grid, paths, rows, j, lane);
    });
  }
};

// The lane's moments from payoff scratch, summed as the fused route sums its sample.
template <typename Real = float>
struct sample_lane {
  const Real* payoffs;
  std::int64_t block_begin;

  template <typename Trade>
  __device__ __forceinline__ moments operator()(const Trade& t, std::int64_t block_in_trade, std::int64_t b,
                                                int lane) const
  {
    return own_subsequence_lane(t.samples, block_in_trade, lane,
                                [&](std::uint64_t) { return payoffs[(b - block_begin) * lanes + lane]; });
  }
};

// The two-phase route's last phase, the same for every one-sample-per-lane family: the
// canonical-block moments of the stored sample values. In an unnamed namespace, so that each
// family's translation unit (compiled whole, without relocatable device code) registers its own
// instantiation.
namespace {

template <typename Trade, typename Real>
__global__ void __launch_bounds__(tuning::european_policy::threads_per_block)
    sample_blocks_kernel(const Trade* __restrict__ trades, int num_trades, block_range blocks,
                         const Real* __restrict__ payoffs, moments* __restrict__ partials)
{
  detail::reduce_canonical_blocks(trades, num_trades, blocks, partials, sample_lane<Real>{payoffs, blocks.begin});
}

template <typename Trade, typename Tables, typename Real>
void launch_sample_blocks(const family_ref<Trade, Tables>& f, block_range blocks, const Real* payoffs,
                          moments* partials, launch_target at)
{
  detail::launch_persistent(sample_blocks_kernel<Trade, Real>, "two_phase::sample_blocks_kernel", blocks.size(),
                            at.grid_blocks, at.stream, f.trades, f.num_trades, blocks, payoffs, partials);
}

}  // namespace
}  // namespace mcprice::kernels::two_phase
