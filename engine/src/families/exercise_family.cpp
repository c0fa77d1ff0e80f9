#include "families/exercise_family.hpp"

#include "backends/pricing_backend.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <set>

namespace mcprice::detail {
namespace {

constexpr std::size_t align256(std::size_t b) { return (b + 255) / 256 * 256; }

template <typename T>
void copy_part(std::vector<unsigned char>& out, std::size_t offset, const std::vector<T>& v)
{
  if (!v.empty()) std::memcpy(out.data() + offset, v.data(), sizeof(T) * v.size());
}

}  // namespace

template <typename Real>
exercise_table_layout layout_of(const basic_exercise_family<Real>& f)
{
  exercise_table_layout l;
  std::size_t at = 0;
  auto const place = [&at](std::size_t bytes) {
    std::size_t const here = at;
    at += align256(bytes);
    return here;
  };
  l.assets = place(sizeof(basic_exercise_asset<Real>) * f.assets.size());
  l.factors = place(sizeof(Real) * f.factors.size());
  l.gbm = place(sizeof(basic_exercise_gbm_step<Real>) * f.gbm_steps.size());
  l.heston = place(sizeof(basic_heston_step<Real>) * f.heston_steps.size());
  l.jumps = place(sizeof(Real) * f.jump_counts.size());
  l.discounts = place(sizeof(Real) * f.discounts.size());
  l.scenarios = place(sizeof(basic_exercise_trade<Real>) * f.scenarios.size());
  l.groups = place(sizeof(exercise_walk_group) * f.walk_groups.size());
  l.coefficients = place(sizeof(Real) * static_cast<std::size_t>(f.coefficient_dates) * max_exercise_basis);
  l.bytes = at;
  l.any_jumps = !f.jump_counts.empty();
  return l;
}

template <typename Real>
std::vector<unsigned char> pack_tables(const basic_exercise_family<Real>& f, const std::vector<Real>& coefficients,
                                       const exercise_table_layout& l)
{
  std::vector<unsigned char> out(l.bytes);
  copy_part(out, l.assets, f.assets);
  copy_part(out, l.factors, f.factors);
  copy_part(out, l.gbm, f.gbm_steps);
  copy_part(out, l.heston, f.heston_steps);
  copy_part(out, l.jumps, f.jump_counts);
  copy_part(out, l.discounts, f.discounts);
  copy_part(out, l.scenarios, f.scenarios);
  copy_part(out, l.groups, f.walk_groups);
  copy_part(out, l.coefficients, coefficients);
  return out;
}

template <typename Real>
basic_packed_exercise_family<Real> packed(basic_exercise_family<Real> f)
{
  auto const l = layout_of(f);
  auto tables = pack_tables(f, {}, l);
  return {std::move(f), l, std::move(tables)};
}

template <typename Real>
basic_exercise_tables<Real> tables_at(const void* base, const exercise_table_layout& l,
                                      const basic_vol_pair<Real>* surfaces)
{
  auto const* b = static_cast<const unsigned char*>(base);
  return {reinterpret_cast<const basic_exercise_asset<Real>*>(b + l.assets),
          reinterpret_cast<const Real*>(b + l.factors),
          reinterpret_cast<const basic_exercise_gbm_step<Real>*>(b + l.gbm),
          reinterpret_cast<const basic_heston_step<Real>*>(b + l.heston),
          reinterpret_cast<const Real*>(b + l.discounts),
          reinterpret_cast<const Real*>(b + l.coefficients),
          reinterpret_cast<const basic_exercise_trade<Real>*>(b + l.scenarios),
          reinterpret_cast<const exercise_walk_group*>(b + l.groups),
          surfaces,
          l.any_jumps ? reinterpret_cast<const Real*>(b + l.jumps) : nullptr};
}

template exercise_table_layout layout_of(const exercise_family&);
template exercise_table_layout layout_of(const basic_exercise_family<double>&);
template std::vector<unsigned char> pack_tables(const exercise_family&, const std::vector<float>&,
                                                const exercise_table_layout&);
template std::vector<unsigned char> pack_tables(const basic_exercise_family<double>&, const std::vector<double>&,
                                                const exercise_table_layout&);
template exercise_tables tables_at(const void*, const exercise_table_layout&, const basic_vol_pair<float>*);
template basic_exercise_tables<double> tables_at(const void*, const exercise_table_layout&,
                                                 const basic_vol_pair<double>*);

namespace {

template <typename T>
bool same_entries(const std::vector<T>& v, std::int64_t a, std::int64_t b, std::int64_t n)
{
  return a == b || std::memcmp(v.data() + a, v.data() + b, sizeof(T) * static_cast<std::size_t>(n)) == 0;
}

}  // namespace

namespace {

constexpr int walks_apart = -2;  // walk_difference: the walks differ in more than one asset
constexpr int same_walks = -1;

// How two scenarios' walks differ: same_walks; the one asset whose own inputs (v0, vol of vol,
// its steps) differ; or walks_apart (other key, dates, correlation factor, or more assets).
template <typename Real>
int walk_difference(const basic_exercise_family<Real>& f, const basic_exercise_trade<Real>& a,
                    const basic_exercise_trade<Real>& b)
{
  if (a.key != b.key || a.dates != b.dates || a.substeps != b.substeps || a.heston != b.heston || a.jumps != b.jumps ||
      a.assets != b.assets ||
      !same_entries(f.factors, a.first_factor, b.first_factor, std::int64_t{a.assets} * a.assets)) {
    return walks_apart;
  }
  int const n = a.assets;
  std::int64_t const per_asset = std::int64_t{a.dates} * a.substeps;
  int found = same_walks;
  for (int i = 0; i < n; ++i) {
    basic_exercise_asset<Real> const& x = f.assets[static_cast<std::size_t>(a.first_asset + i)];
    basic_exercise_asset<Real> const& y = f.assets[static_cast<std::size_t>(b.first_asset + i)];
    bool same = std::memcmp(&x.v0, &y.v0, sizeof(Real)) == 0 && std::memcmp(&x.xi, &y.xi, sizeof(Real)) == 0 &&
                std::memcmp(&x.jumps, &y.jumps, sizeof(x.jumps)) == 0;
    // Steps are date-major (per_asset rows of n); one table shared is the same for every asset.
    for (std::int64_t k = 0; same && a.first_step != b.first_step && k < per_asset; ++k) {
      same = a.heston ? same_entries(f.heston_steps, a.first_step + k * n + i, b.first_step + k * n + i, 1)
                      : same_entries(f.gbm_steps, a.first_step + k * n + i, b.first_step + k * n + i, 1);
    }
    for (std::int64_t k = 0; same && a.jumps && a.first_jump != b.first_jump && k < per_asset; ++k)
      same = same_entries(f.jump_counts, a.first_jump + k * n + i, b.first_jump + k * n + i, 1);
    if (same) continue;
    if (found != same_walks) return walks_apart;
    found = i;
  }
  return found;
}

}  // namespace

template <typename Real>
bool same_walk(const basic_exercise_family<Real>& f, const basic_exercise_trade<Real>& a,
               const basic_exercise_trade<Real>& b)
{
  return walk_difference(f, a, b) == same_walks;
}

std::uint32_t combination_asset_counts(const exercise_family& f)
{
  std::uint32_t counts = 0;
  for (auto const& c : f.combinations) counts |= 1U << f.scenarios[static_cast<std::size_t>(c.scenario[0])].assets;
  return counts;
}

template <typename Real>
bool same_decisions(const basic_exercise_family<Real>& f, const basic_exercise_trade<Real>& a,
                    const basic_exercise_trade<Real>& b)
{
  auto const same_real = [](Real x, Real y) { return std::memcmp(&x, &y, sizeof(Real)) == 0; };
  bool same = a.first_date == b.first_date && a.first_coefficient == b.first_coefficient && a.basis == b.basis &&
              a.payoff == b.payoff && a.call == b.call && a.unit_weights == b.unit_weights &&
              a.european_floor == b.european_floor && a.first_left == b.first_left &&
              same_real(a.strike, b.strike) && same_real(a.norm, b.norm) && same_real(a.v_norm, b.v_norm) &&
              same_walk(f, a, b);
  for (int i = 0; same && i < a.assets; ++i) {
    same = same_real(f.assets[static_cast<std::size_t>(a.first_asset + i)].weight,
                     f.assets[static_cast<std::size_t>(b.first_asset + i)].weight);
  }
  return same;
}

int walk_group_legs(std::size_t spot_legs, std::int64_t paths, int resident_warps)
{
  auto const warps = static_cast<double>((paths + 31) / 32);
  double const legs = std::ceil(static_cast<double>(spot_legs) * warps / resident_warps);
  return static_cast<int>(std::clamp(legs, double{tuning::exercise_walk_min_legs}, double{max_group_legs}));
}

template <typename Real>
int walk_group_legs(const basic_exercise_family<Real>& f, std::size_t first, std::size_t end)
{
  std::set<std::int32_t> legs;
  std::int64_t paths = 0;
  bool sized = false;
  for (std::size_t i = first; i < end; ++i) {
    auto const& c = f.combinations[i];
    if (!c.shared_path) continue;
    legs.insert(c.scenario, c.scenario + c.legs);
    paths = std::max(paths, c.samples);
    sized = tuning::exercise_sized(f.scenarios[static_cast<std::size_t>(c.scenario[0])].assets);
  }
  return walk_group_legs(legs.size(), paths, sized ? tuning::exercise_sized_walk_warps : tuning::exercise_walk_warps);
}

template <typename Real>
void group_spot_walks(basic_exercise_family<Real>& f, std::size_t first, std::size_t end, int max_legs)
{
  max_legs = std::clamp(max_legs, 1, max_group_legs);
  std::optional<exercise_walk_group> open;
  auto const close = [&] {
    if (open && open->members > 1) {
      auto const index = static_cast<std::int32_t>(f.walk_groups.size());
      for (int m = 0; m < open->members; ++m) f.combinations[static_cast<std::size_t>(open->member[m])].group = index;
      f.walk_groups.push_back(*open);
    }
    open.reset();
  };
  for (std::size_t i = first; i < end; ++i) {
    exercise_combination& c = f.combinations[i];
    c.group = -1;
    if (!c.shared_path) continue;
    // Group g with this combination in it, if it may join (its legs recorded in c.group_leg).
    auto const joined = [&](exercise_walk_group g) -> std::optional<exercise_walk_group> {
      if (g.members == max_group_members) return std::nullopt;
      const basic_exercise_trade<Real>& walker =
          f.scenarios[static_cast<std::size_t>(g.legs > 0 ? g.scenario[0] : c.scenario[0])];
      for (int k = 0; k < c.legs; ++k) {
        if (!same_decisions(f, walker, f.scenarios[static_cast<std::size_t>(c.scenario[k])])) return std::nullopt;
        auto const at =
            static_cast<std::int32_t>(std::find(g.scenario, g.scenario + g.legs, c.scenario[k]) - g.scenario);
        if (at == g.legs) {
          if (g.legs == max_legs) return std::nullopt;
          g.scenario[g.legs++] = c.scenario[k];
        }
        c.group_leg[k] = at;
      }
      g.member[g.members++] = static_cast<std::int32_t>(i);
      return g;
    };
    auto next = open ? joined(*open) : std::nullopt;
    if (!next) {
      close();
      next = joined(exercise_walk_group{});
    }
    open = next;  // empty when c cannot walk with its own legs: it stays on its own
  }
  close();
}

template <typename Real>
void mark_variant_pairs(basic_exercise_family<Real>& f, std::size_t first, std::size_t end)
{
  for (std::size_t i = first; i < end; ++i) {
    exercise_combination& c = f.combinations[i];
    c.variant_asset = -1;
    if (c.shared_path || c.legs != 2) continue;
    int const differing = walk_difference(f, f.scenarios[static_cast<std::size_t>(c.scenario[0])],
                                          f.scenarios[static_cast<std::size_t>(c.scenario[1])]);
    c.variant_asset = differing >= 0 ? differing : -1;
  }
}

std::vector<exercise_combination> each_leg_alone(std::vector<exercise_combination> combinations)
{
  for (auto& c : combinations) {
    c.group = -1;
    c.variant_asset = -1;
  }
  return combinations;
}

std::size_t calibration_bytes(std::int64_t blocks, std::int64_t path_floats, std::size_t real_bytes)
{
  auto const paths = static_cast<std::size_t>(blocks) * calibration_paths_per_block;
  return align256(real_bytes * static_cast<std::size_t>(path_floats)) + align256(real_bytes * paths);
}

std::size_t calibration_bytes(const calibration_job& job)
{
  return calibration_bytes(job.end_block - job.first_block, job.end_float - job.first_float);
}

template <typename Real>
calibration_plan plan_calibration(const std::vector<basic_exercise_trade<Real>>& trades, std::int64_t total_blocks,
                                  std::size_t cap)
{
  auto const bytes = [](std::int64_t blocks, std::int64_t path_floats) {
    return calibration_bytes(blocks, path_floats, sizeof(Real));
  };
  calibration_plan plan;
  bool open = false;
  calibration_job job{};
  auto const close = [&] {
    if (open) plan.jobs.push_back(job);
    open = false;
  };
  for (std::size_t i = 0; i < trades.size(); ++i) {
    const basic_exercise_trade<Real>& t = trades[i];
    std::int64_t const per_block = std::int64_t{calibration_paths_per_block} * calibration_rows(t);
    std::int64_t const end = i + 1 < trades.size() ? trades[i + 1].first_calibration_block : total_blocks;
    if (cap != 0 && bytes(1, per_block) > cap) {
      plan.trades_too_large.push_back(i);
      plan.smallest_need = std::max(plan.smallest_need, bytes(1, per_block));
      close();
      continue;
    }
    for (std::int64_t b = t.first_calibration_block; b < end; ++b) {
      std::int64_t const first_float = t.calibration_offset + (b - t.first_calibration_block) * per_block;
      if (open &&
          (cap == 0 || bytes(b + 1 - job.first_block, first_float + per_block - job.first_float) <= cap)) {
        job.end_block = b + 1;
        job.end_float = first_float + per_block;
        continue;
      }
      close();
      job = {b, b + 1, first_float, first_float + per_block};
      open = true;
    }
  }
  close();
  plan.resident = plan.jobs.size() <= 1;
  return plan;
}

template <typename Real>
int backward_steps(const basic_exercise_family<Real>& f)
{
  int steps = 0;
  for (auto const& t : f.trades) steps = std::max(steps, regressions(t));
  return steps + 1;
}

template <typename Real>
basic_calibration<Real> calibrate(const basic_exercise_family<Real>& f, const calibration_plan& plan,
                                  basic_calibration_executor<Real>& x, const run_control& control)
{
  basic_calibration<Real> c;
  c.coefficients.assign(static_cast<std::size_t>(f.coefficient_dates) * max_exercise_basis, Real(0));
  c.continuation_today.assign(f.trades.size(), 0.0);
  if (plan.jobs.empty()) return c;
  int const steps = backward_steps(f);
  if (plan.resident) x.simulate(plan.jobs.front());
  if (plan.resident && !control.cancelled() && x.backward_all(plan.jobs.front(), steps)) {
    x.collect(c.coefficients, c.continuation_today);
    return c;
  }
  for (int s = 0; s < steps; ++s) {
    if (control.cancelled()) {
      c.cancelled = true;
      return c;
    }
    for (auto const& job : plan.jobs) {
      if (!plan.resident) x.simulate(job);
      x.backward(job, plan.resident ? std::max(0, s - 1) : 0, s);
    }
    x.regress(s);
  }
  // A stop sent while the last steps were queued (a GPU executor's, as it paces them) leaves
  // them partial: the family is cancelled, as at a step's start.
  if (control.cancelled()) {
    c.cancelled = true;
    return c;
  }
  x.collect(c.coefficients, c.continuation_today);
  return c;
}

#define MCPRICE_EXERCISE_FAMILY_OF(Real)                                                              \
  template basic_packed_exercise_family<Real> packed(basic_exercise_family<Real>);                    \
  template bool same_walk(const basic_exercise_family<Real>&, const basic_exercise_trade<Real>&,      \
                          const basic_exercise_trade<Real>&);                                         \
  template bool same_decisions(const basic_exercise_family<Real>&, const basic_exercise_trade<Real>&, \
                               const basic_exercise_trade<Real>&);                                    \
  template int walk_group_legs(const basic_exercise_family<Real>&, std::size_t, std::size_t);         \
  template void group_spot_walks(basic_exercise_family<Real>&, std::size_t, std::size_t, int);        \
  template void mark_variant_pairs(basic_exercise_family<Real>&, std::size_t, std::size_t);
MCPRICE_EXERCISE_FAMILY_OF(float)
MCPRICE_EXERCISE_FAMILY_OF(double)
#undef MCPRICE_EXERCISE_FAMILY_OF

template calibration_plan plan_calibration(const std::vector<exercise_trade>&, std::int64_t, std::size_t);
template calibration_plan plan_calibration(const std::vector<basic_exercise_trade<double>>&, std::int64_t,
                                           std::size_t);
template int backward_steps(const exercise_family&);
template int backward_steps(const basic_exercise_family<double>&);
template calibration calibrate(const exercise_family&, const calibration_plan&, calibration_executor&,
                               const run_control&);
template basic_calibration<double> calibrate(const basic_exercise_family<double>&, const calibration_plan&,
                                             basic_calibration_executor<double>&, const run_control&);

}  // namespace mcprice::detail
