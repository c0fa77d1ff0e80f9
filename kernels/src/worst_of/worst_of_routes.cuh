#pragma once
// The worst-of kernels of one model, fused, two-phase and with Greeks: a Model says how its paths
// walk (walk_worst_of's contract: observe(k, step k's first row, worst of side a, of side b)),
// where a trade's rows and initial levels are, a fused lane and a Greek lane. GBM's
// (worst_of_kernel.cu), local vol's and Heston's share every lane and kernel here (GBM's Greeks
// have a kernel of their own, worst_of_greeks_kernel.cu).
#include "mcprice/kernels/launch/canonical_blocks.cuh"
#include "mcprice/kernels/launch/stream_choice.cuh"
#include "mcprice/kernels/layout/two_phase_rows.cuh"

namespace mcprice::kernels::worst_of_routes {

// Which generators a source compiles its routes for (the Gen argument of the launchers below):
// both, or Philox alone and Sobol alone, where a model keeps its Sobol kernels in a module of
// their own (kernel_module.cuh).
struct any_generator {
  template <typename Quasi, typename Launch>
  static void with(const launch_target& at, Launch&& launch)
  {
    detail::with_normal_stream<Quasi>(at, launch);
  }
};
struct philox_only {
  template <typename Quasi, typename Launch>
  static void with(const launch_target&, Launch&& launch)
  {
    launch(detail::stream_tag<rng::device_normal_stream>{});
  }
};
struct quasi_only {
  template <typename Quasi, typename Launch>
  static void with(const launch_target& at, Launch&& launch)
  {
    detail::with_quasi_stream<Quasi>(at, launch);
  }
};

using policy = tuning::european_policy;
using two_phase::lanes;
using two_phase::row_index;
using two_phase::sample_of;

template <typename Model, typename Stream>
struct fused_lane {
  typename Model::tables tab;
  __device__ __forceinline__ moments operator()(const typename Model::trade& t, std::int64_t block_in_trade,
                                                std::int64_t, int lane) const
  {
    return Model::template lane<Stream>(t, tab, block_in_trade, lane);
  }
};

template <typename Model, typename Stream>
__global__ void __launch_bounds__(policy::threads_per_block)
    blocks_kernel(const typename Model::trade* __restrict__ trades, int num_trades, typename Model::tables tab,
                  block_range blocks, moments* __restrict__ block_moments)
{
  detail::reduce_canonical_blocks(trades, num_trades, blocks, block_moments, fused_lane<Model, Stream>{tab});
}

// Rows of a sample: step k's worst log performance of side a at 2k, its variance at 2k + 1;
// side b's after side a's.
template <typename Model, typename Stream>
struct observation_lane {
  using real = typename Model::real;
  typename Model::tables tab;
  real* paths;
  int rows;
  std::int64_t block_begin;

  __device__ __forceinline__ void operator()(const typename Model::trade& t, std::int64_t block_in_trade,
                                             std::int64_t b, int lane) const
  {
    std::int64_t const sample = sample_of(t, block_in_trade, lane);
    if (sample < 0) return;
    std::int64_t const j = b - block_begin;
    int const side_rows = 2 * t.steps;
    auto const store = [&](int k, const auto&, const worst_of_step<real>& wa, const worst_of_step<real>& wb) {
      paths[row_index(j, rows, 2 * k, lane)] = wa.x;
      paths[row_index(j, rows, 2 * k + 1, lane)] = wa.var;
      if (t.antithetic) {
        paths[row_index(j, rows, side_rows + 2 * k, lane)] = wb.x;
        paths[row_index(j, rows, side_rows + 2 * k + 1, lane)] = wb.var;
      }
    };
    auto const always = [] { return true; };
    auto const seed = static_cast<std::uint64_t>(sample);
    if (t.antithetic) {
      Model::template walk<Stream, true>(t, tab, seed, store, always);
    } else {
      Model::template walk<Stream, false>(t, tab, seed, store, always);
    }
  }
};

// A side's value from its stored rows, through the fused route's observations.
template <typename Model>
__device__ __forceinline__ typename Model::real replay_side(const typename Model::trade& t,
                                                            const typename Model::tables& tab,
                                                            const typename Model::real* paths, int rows,
                                                            std::int64_t j, int lane, int first_row)
{
  using real = typename Model::real;
  const basic_path_gbm_trade<real>& base = t;
  auto const* steps = Model::steps(t, tab);
  auto const levels = observation_rows_of(steps, t);
  auto state = worst_of_start(t, Model::log_initials(t, tab));
  for (int k = 0; k < t.steps && !state.settled(); ++k) {
    auto const s = steps[static_cast<std::int64_t>(k) * t.assets];
    state.template observe<path_product::autocallable>(
        base, real(0), paths[row_index(j, rows, first_row + 2 * k, lane)],
        paths[row_index(j, rows, first_row + 2 * k + 1, lane)], s.fixing, s.hit_value, real(0), levels);
  }
  return state.template settle<path_product::autocallable>(base);
}

template <typename Model>
struct payoff_lane {
  using real = typename Model::real;
  typename Model::tables tab;
  const real* paths;
  int rows;
  real* payoffs;
  std::int64_t block_begin;

  __device__ __forceinline__ void operator()(const typename Model::trade& t, std::int64_t block_in_trade,
                                             std::int64_t b, int lane) const
  {
    if (sample_of(t, block_in_trade, lane) < 0) return;
    std::int64_t const j = b - block_begin;
    real const up = replay_side<Model>(t, tab, paths, rows, j, lane, 0);
    payoffs[j * lanes + lane] =
        t.antithetic ? real(0.5) * (up + replay_side<Model>(t, tab, paths, rows, j, lane, 2 * t.steps)) : up;
  }
};

template <typename Model, typename Stream>
__global__ void __launch_bounds__(policy::threads_per_block)
    observations_kernel(const typename Model::trade* __restrict__ trades, int num_trades, typename Model::tables tab,
                        block_range blocks, typename Model::real* __restrict__ paths, int rows)
{
  detail::for_canonical_blocks(trades, num_trades, blocks,
                               observation_lane<Model, Stream>{tab, paths, rows, blocks.begin});
}

template <typename Model>
__global__ void __launch_bounds__(policy::threads_per_block)
    payoffs_kernel(const typename Model::trade* __restrict__ trades, int num_trades, typename Model::tables tab,
                   block_range blocks, const typename Model::real* __restrict__ paths, int rows,
                   typename Model::real* __restrict__ payoffs)
{
  detail::for_canonical_blocks(trades, num_trades, blocks, payoff_lane<Model>{tab, paths, rows, payoffs, blocks.begin});
}

// The fused route over `blocks` (Model::name names the kernel in errors and profiles).
template <typename Model, typename Gen = any_generator, typename Ref>
void launch_blocks(const Ref& f, block_range blocks, moments* partials, launch_target at)
{
  if (f.num_trades == 0) return;
  using real = typename Model::real;
  Gen::template with<rng::device_sobol_stream<worst_of_sobol_assets, real>>(at, [&](auto stream) {
    detail::launch_persistent(blocks_kernel<Model, typename decltype(stream)::type>, Model::blocks_name, blocks.size(),
                              at.grid_blocks, at.stream, f.trades, f.num_trades, f.tables, blocks, partials);
  });
}

// The two-phase route: every step's worst performance and variance stored (a called path's later
// ones are stored and ignored), then replayed through the fused route's path state, to its bits.
template <typename Model, typename Gen = any_generator, typename Ref>
void launch_two_phase(const Ref& f, block_range blocks, const two_phase_scratch<typename Model::real>& s,
                      moments* partials, launch_target at)
{
  if (f.num_trades == 0) return;
  using real = typename Model::real;
  Gen::template with<rng::device_sobol_stream<worst_of_sobol_assets, real>>(at, [&](auto stream) {
    detail::launch_persistent(observations_kernel<Model, typename decltype(stream)::type>, Model::observations_name,
                              blocks.size(), at.grid_blocks, at.stream, f.trades, f.num_trades, f.tables, blocks,
                              s.paths, s.rows);
  });
  detail::launch_persistent(payoffs_kernel<Model>, Model::payoffs_name, blocks.size(), at.grid_blocks, at.stream,
                            f.trades, f.num_trades, f.tables, blocks, s.paths, s.rows, s.payoffs);
  two_phase::launch_sample_blocks(f, blocks, s.payoffs, partials, at);
}

template <typename Model, typename Stream>
struct greek_lane {
  typename Model::tables tab;
  __device__ __forceinline__ priced_basket_greeks operator()(const typename Model::trade& t,
                                                             std::int64_t block_in_trade, std::int64_t, int lane) const
  {
    return Model::template greek_lane<Stream>(t, tab, block_in_trade, lane);
  }
};

template <typename Model, typename Stream>
__global__ void __launch_bounds__(tuning::worst_of_greek_policy::threads_per_block,
                                  tuning::worst_of_greek_policy::min_blocks_per_sm)
    greek_blocks_kernel(const typename Model::trade* __restrict__ trades, int num_trades, typename Model::tables tab,
                        block_range blocks, moments* __restrict__ price_partials,
                        basket_greek_moments* __restrict__ greek_partials)
{
  detail::reduce_canonical_units(trades, num_trades, blocks,
                                 detail::store_price_and_greeks<basket_greek_moments>{price_partials, greek_partials},
                                 greek_lane<Model, Stream>{tab});
}

// The price partials of launch_blocks, bit for bit, and each partial's Greek sums in the
// baskets' channels.
template <typename Model, typename Gen = any_generator, typename Ref>
void launch_greek_blocks(const Ref& f, block_range blocks, moments* price_partials,
                         basket_greek_moments* greek_partials, launch_target at)
{
  if (f.num_trades == 0) return;
  Gen::template with<rng::device_sobol_stream<worst_of_sobol_assets>>(at, [&](auto stream) {
    detail::launch_persistent(greek_blocks_kernel<Model, typename decltype(stream)::type>, Model::greeks_name(),
                              blocks.size(), at.grid_blocks, at.stream, f.trades, f.num_trades, f.tables, blocks,
                              price_partials, greek_partials);
  });
}

}  // namespace mcprice::kernels::worst_of_routes
