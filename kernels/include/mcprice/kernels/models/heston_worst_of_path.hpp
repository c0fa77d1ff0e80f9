#pragma once
// Worst-of autocallables on correlated Heston assets (GBM ones may sit beside them). Each step
// draws the correlated log-spot normals y = A z as the GBM worst-of does, then one independent
// normal per asset for its variance, and moves every asset by Andersen's QE step
// (heston_path.hpp), as the multi-asset Heston exercise walks do: the market's correlation is
// that of the log-spot drivers independent of each variance (docs/design.md). A GBM
// asset is a Heston asset with no vol of vol, a unit variance and steps whose length is its
// total Black variance over the step: QE's log-normal branch is then its exact step. The
// continuous knock-in takes the worst asset's bridge on that asset's integrated variance over
// the step (worst_of_path.hpp, docs/formats.md).
#include "mcprice/kernels/models/heston_path.hpp"
#include "mcprice/kernels/models/worst_of_path.hpp"

#include <cstdint>

namespace mcprice {

// Normals a step takes per asset: its log spot's and its variance's.
inline constexpr int heston_worst_of_normals_per_asset = 2;

// An asset's Heston parameters a path reads (a GBM asset: v0 = 1, xi = 0).
struct heston_worst_of_asset {
  float v0;
  float xi;
};

// The worst-of record; its rows are Heston steps: k x assets + i is asset i's step k (every row
// of a step carries its hit_value and fixing byte), then the observation rows.
using heston_worst_of_trade = basic_worst_of_trade<float>;

// What a walk reads: the family's tables (device pointers in kernels, host ones on the CPU).
struct heston_worst_of_tables {
  const heston_step* steps{nullptr};
  const heston_worst_of_asset* assets{nullptr};  // trade.first_asset, as the initial levels
  const float* log_initials{nullptr};            // ln(L_i / S_i(0))
  const float* factors{nullptr};                 // assets x assets, row-major
};

// Moves one side's log spots x and variances v by step k (rows: the step's, an asset each) with
// the correlated normals y and the variance normals z_v, and returns its worst.
template <int Assets>
MCPRICE_HD MCPRICE_INLINE worst_of_step<float> step_heston_worst_of(const heston_worst_of_trade& t,
                                                                    const heston_worst_of_tables& tab,
                                                                    const heston_step* rows, const float* y,
                                                                    const float* z_v, float sign, float* x, float* v)
{
  worst_of_step<float> w{0.0F, 0.0F};
  const float* log_initial = tab.log_initials + t.first_asset;
  const heston_worst_of_asset* assets = tab.assets + t.first_asset;
  int const n = Assets > 0 ? Assets : t.assets;
  for (int i = 0; i < n; ++i) {
    float dx = 0.0F;
    float var = 0.0F;
    heston_qe_step(assets[i].xi, rows[i], v[i], qe_normal_draw{sign * z_v[i]}, sign * y[i], dx, var);
    x[i] += dx;
    float const performance = x[i] - log_initial[i];
    if (i == 0 || performance < w.x) w = {performance, var};
  }
  return w;
}

// Calls observe(k, step k's first row, worst step of side a, of side b) after each step, while
// `open()`. Assets: the asset count where a kernel sizes it (worst_of_room), or 0.
template <typename NormalStream, bool Antithetic, int Assets = 0, typename Observe, typename Open>
MCPRICE_HD MCPRICE_INLINE void walk_heston_worst_of(const heston_worst_of_trade& t, const heston_worst_of_tables& tab,
                                                    std::uint64_t group, Observe&& observe, Open&& open)
{
  int const n = Assets > 0 ? Assets : t.assets;
  const heston_step* steps = tab.steps + t.first_step;
  float va[worst_of_room<Assets>];
  float vb[worst_of_room<Assets>];
  float z_v[worst_of_room<Assets>];
  for (int i = 0; i < n; ++i) va[i] = vb[i] = tab.assets[t.first_asset + i].v0;
  walk_worst_of_sides<NormalStream, Antithetic, Assets>(
      t, tab.factors + t.first_factor, group,
      [&](auto& normals) {
        for (int i = 0; i < n; ++i) z_v[i] = normals.next();
      },
      [&](int k, const float* y, float sign, float* x) {
        return step_heston_worst_of<Assets>(t, tab, steps + static_cast<std::int64_t>(k) * n, y, z_v, sign, x,
                                            sign > 0.0F ? va : vb);
      },
      [&](int k, const worst_of_step<float>& a, const worst_of_step<float>& b) {
        observe(k, steps[static_cast<std::int64_t>(k) * n], a, b);
      },
      open);
}

template <typename NormalStream, bool Antithetic, int Assets = 0>
MCPRICE_HD MCPRICE_INLINE float heston_worst_of_sample(const heston_worst_of_trade& t, const heston_worst_of_tables& tab,
                                                       std::uint64_t group)
{
  return worst_of_value<Antithetic>(t, tab.steps + t.first_step, tab.log_initials + t.first_asset,
                                    [&](auto&& observe, auto&& open) {
                                      walk_heston_worst_of<NormalStream, Antithetic, Assets>(t, tab, group, observe,
                                                                                             open);
                                    });
}

// A sample's price (with_worst_of_room: sized or not, the same arithmetic).
template <typename NormalStream>
MCPRICE_HD MCPRICE_INLINE float heston_worst_of_price(const heston_worst_of_trade& t, const heston_worst_of_tables& tab,
                                                      std::uint64_t group)
{
  return with_worst_of_room(t.assets, [&](auto room) {
    constexpr int a = decltype(room)::value;
    return t.antithetic ? heston_worst_of_sample<NormalStream, true, a>(t, tab, group)
                        : heston_worst_of_sample<NormalStream, false, a>(t, tab, group);
  });
}

template <typename NormalStream>
MCPRICE_HD MCPRICE_INLINE moments heston_worst_of_lane(const heston_worst_of_trade& t,
                                                       const heston_worst_of_tables& tab, std::int64_t block, int lane)
{
  return own_subsequence_lane(t.samples, block, lane, [&](std::uint64_t subsequence) {
    return heston_worst_of_price<NormalStream>(t, tab, subsequence);
  });
}

}  // namespace mcprice
