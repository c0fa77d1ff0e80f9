// The GPU's walk groups for early-exercise Greeks (exercise_family.hpp, group_units in
// early_exercise_kernel.cu): which combinations share one walk, and that one walk gives each of
// their legs, and so each combination's per-path value, exactly the bits of the combination's
// own walk. Run here on the host mirror of the kernel's per-path maths.
#include "catch.hpp"
#include "backends/cpu/cpu_calibration.hpp"
#include "exercise_reference.hpp"
#include "mcprice/engine.hpp"
#include "mcprice/kernels/rng/host_normal_stream.hpp"
#include "families/request_families.hpp"

#include <algorithm>
#include <cstring>
#include <set>
#include <string>

using namespace mcprice;
using namespace mcprice::testing;

namespace {

// n correlated assets (Heston or GBM), no two alike.
market_data assets_market(int n, bool heston)
{
  std::string json = R"({"rate": 0.03, "assets": {)";
  for (int i = 0; i < n; ++i) {
    std::string const s = std::to_string(95 + 3 * i);
    json += (i ? ", " : "") + std::string("\"A") + std::to_string(i) + "\": {\"spot\": " + s;
    if (heston) {
      json += R"(, "model": "heston", "heston": {"v0": )" + std::to_string(0.03 + 0.004 * i) +
              R"(, "kappa": 1.5, "theta": 0.04, "xi": 0.5, "rho": -0.6}})";
    } else {
      json += ", \"vol\": " + std::to_string(0.2 + 0.02 * i) + "}";
    }
  }
  json += R"(}, "correlation": {)";
  bool first = true;
  for (int i = 0; i < n; ++i) {
    for (int j = i + 1; j < n; ++j) {
      json += (first ? "" : ", ") + std::string("\"A") + std::to_string(i) + ",A" + std::to_string(j) + "\": 0.4";
      first = false;
    }
  }
  return parse_market(json + "}}", "walk-groups");
}

trade worst_of_put(int n, std::int64_t dates)
{
  std::vector<std::string> names;
  for (int i = 0; i < n; ++i) names.push_back("A" + std::to_string(i));
  return exercise_trade_of("w", option_type::put, names, 100, 1, exercise_style::american, dates,
                           n > 1 ? product_kind::worst_of : product_kind::vanilla);
}

detail::exercise_greek_book rows_with_greeks(const trade& t, const market_data& m, const engine_options& o)
{
  detail::exercise_family trades;
  detail::add_to_family(trades, detail::make_exercise_job(t, m, o));
  detail::thread_cache threads;
  return detail::make_exercise_greek_book(trades, {t}, m, o, threads);
}

bool same_float(float a, float b) { return std::memcmp(&a, &b, sizeof(float)) == 0; }

// The family's tables under a policy calibrated on the CPU, so that legs exercise at different
// dates.
struct calibrated {
  explicit calibrated(const detail::exercise_family& f)
  {
    auto const l = detail::layout_of(f);
    auto const plan = detail::plan_calibration(f.trades, f.calibration_blocks, 0);
    detail::run_control const control;
    auto const c = detail::calibrate(f, plan, *detail::make_cpu_calibration(f, l, plan, control), control);
    packed = detail::pack_tables(f, c.coefficients, l);
    tables = detail::tables_at<float>(packed.data(), l, nullptr);
  }
  calibrated(const calibrated&) = delete;
  calibrated& operator=(const calibrated&) = delete;

  std::vector<unsigned char> packed;
  exercise_tables tables{};  // into packed
};

}  // namespace

TEST_CASE(
    "walk groups: the spot combinations of a trade walk together up to a group's legs, each leg placed once, the rest "
    "alone")
{
  engine_options o;
  o.paths = 2000;
  o.steps = 8;
  // (assets, legs a group, walks expected for the delta, gamma and cross-gamma combinations)
  struct row {
    int n;
    int legs;
    std::size_t walks;
  };
  // 5 assets by 8 legs: deltas and gammas of assets 1-3 (7 legs), of 4-5 (5 legs), then the ten
  // cross gammas (4 legs each) in pairs. 64 legs: all 51 in one walk; 10 assets: 201 legs in 4.
  for (row const r : {row{1, 8, 1}, row{2, 8, 2}, row{5, 8, 7}, row{5, 64, 1}, row{10, 64, 4}, row{10, 8, 26}}) {
    INFO(r.n << " assets, " << r.legs << " legs a group");
    auto rows = rows_with_greeks(worst_of_put(r.n, 8), assets_market(r.n, true), o);
    auto& f = rows.family.f;
    f.walk_groups.clear();
    detail::group_spot_walks(f, 0, f.combinations.size(), r.legs);
    std::size_t shared = 0;
    std::size_t alone = 0;
    std::set<int> seen;
    for (std::size_t i = 0; i < f.combinations.size(); ++i) {
      auto const& c = f.combinations[i];
      if (!c.shared_path) {
        CHECK(c.group == -1);
        continue;
      }
      ++shared;
      if (c.group < 0) {
        ++alone;
        continue;
      }
      REQUIRE(c.group < static_cast<int>(f.walk_groups.size()));
      auto const& g = f.walk_groups[static_cast<std::size_t>(c.group)];
      CHECK(std::count(g.member, g.member + g.members, static_cast<std::int32_t>(i)) == 1);
      for (int k = 0; k < c.legs; ++k) {
        REQUIRE(c.group_leg[k] >= 0);
        REQUIRE(c.group_leg[k] < g.legs);
        CHECK(g.scenario[c.group_leg[k]] == c.scenario[k]);
      }
      seen.insert(c.group);
    }
    // delta and gamma per asset, a cross gamma per pair
    CHECK(shared == static_cast<std::size_t>(2 * r.n + r.n * (r.n - 1) / 2));
    CHECK(seen.size() == f.walk_groups.size());
    CHECK(f.walk_groups.size() + alone == r.walks);
    for (auto const& g : f.walk_groups) {
      CHECK(g.members > 1);
      CHECK(g.legs <= r.legs);
      std::set<std::int32_t> const distinct(g.scenario, g.scenario + g.legs);
      CHECK(distinct.size() == static_cast<std::size_t>(g.legs));
    }
  }
}

TEST_CASE("walk groups: spot scenarios walk their trade's tables; others bring their own")
{
  engine_options o;
  o.paths = 2000;
  o.steps = 8;
  auto const rows = rows_with_greeks(worst_of_put(3, 8), assets_market(3, true), o);
  auto const& f = rows.family.f;
  auto const& own = f.trades.front();
  std::size_t sharing = 0;
  for (auto const& c : f.combinations) {
    for (int k = 0; k < c.legs; ++k) {
      auto const& s = f.scenarios[static_cast<std::size_t>(c.scenario[k])];
      bool const same =
          s.first_step == own.first_step && s.first_factor == own.first_factor && s.first_date == own.first_date;
      CHECK(same == (c.shared_path != 0));
      CHECK(detail::same_walk(f, s, own) == (c.shared_path != 0));  // vega, rho, theta, correlation move the paths
      sharing += same ? 1 : 0;
    }
  }
  CHECK(sharing > 0);
}

TEST_CASE("a calibration path carried from step to step has every backward step's terms, bit for bit (host mirror)")
{
  // The GPU's one-launch calibration keeps each path in one thread: its cash flow, and the basis
  // and exercise value of the date just regressed, go on to the next step's decision
  // (carried_terms) instead of being read and formed again from the stored state, as the
  // per-step kernels do (backward_terms).
  engine_options o;
  o.paths = 600;
  o.steps = 12;
  for (bool heston : {true, false}) {
    for (int n : {1, 3}) {
      INFO((heston ? "Heston, " : "GBM, ") << n << " assets");
      auto const m = assets_market(n, heston);
      auto rows = rows_with_greeks(worst_of_put(n, 12), m, o);
      calibrated const cal(rows.family.f);
      exercise_tables const& tab = cal.tables;
      exercise_trade const& t = rows.family.f.trades.front();
      // The trade's first calibration block, stored as the calibration stores it.
      std::vector<float> paths(static_cast<std::size_t>(calibration_rows(t)) * calibration_paths_per_block);
      std::vector<float> flows(calibration_paths_per_block);
      calibration_view const v{paths.data(), flows.data(), t.first_calibration_block, t.calibration_offset};
      std::vector<carried_path> carried(calibration_paths_per_block);
      std::size_t exercised = 0;
      with_sized_trade(t, [&](const auto& sized) {
        for (int lane = 0; lane < calibration_paths_per_block; ++lane) {
          simulate_calibration_path<rng::host_normal_stream>(sized, tab, v, 0, t.first_calibration_block, lane);
          carried[static_cast<std::size_t>(lane)].cash_flow = flows[static_cast<std::size_t>(lane)];
        }
        for (int step = 0; step <= regressions(t); ++step) {
          for (int lane = 0; lane < calibration_paths_per_block; ++lane) {
            auto& c = carried[static_cast<std::size_t>(lane)];
            float const before = c.cash_flow;
            regression_terms const own =
                backward_terms(sized, tab, v, 0, t.first_calibration_block, lane, std::max(0, step - 1), step);
            regression_terms const kept = carried_terms(sized, tab, v, 0, lane, step, c);
            REQUIRE(own.live == kept.live);
            REQUIRE(own.in_the_money == kept.in_the_money);
            CHECK(std::memcmp(&own.cash_flow, &kept.cash_flow, sizeof(double)) == 0);
            for (int k = 0; own.in_the_money && k < t.basis; ++k) {
              CHECK(same_float(own.phi[k], kept.phi[k]));
            }
            exercised += same_float(before, c.cash_flow) ? 0 : 1;
          }
        }
      });
      CHECK(exercised > 0);  // decisions were taken: not a comparison of unchanged cash flows
    }
  }
}

TEST_CASE("walk groups: one walk gives every grouped combination the bits of its own walk (host mirror)")
{
  engine_options o;
  o.paths = 1024;
  o.steps = 12;
  for (bool heston : {true, false}) {
    for (int n : {1, 3, 10}) {
      INFO((heston ? "Heston, " : "GBM, ") << n << " assets");
      auto const m = assets_market(n, heston);
      auto rows = rows_with_greeks(worst_of_put(n, 12), m, o);
      auto& f = rows.family.f;
      calibrated const cal(f);
      exercise_tables const& tab = cal.tables;
      REQUIRE_FALSE(f.walk_groups.empty());
      std::size_t paying = 0;
      for (auto const& g : f.walk_groups) {
        for (std::uint64_t path = 0; path < 200; ++path) {
          float value[max_group_legs];
          with_sized_trade(tab.scenarios[g.scenario[0]], [&](const auto& first) {
            group_leg_values<rng::host_normal_stream>(first, g, tab, path, value);
            for (int k = 0; k < g.legs; ++k) {  // each leg's own walk, deciding alone
              auto const leg = same_kind(first, tab.scenarios[g.scenario[k]]);
              CHECK(same_float(value[k], exercise_sample<rng::host_normal_stream>(leg, tab, path)));
            }
          });
          for (int m = 0; m < g.members; ++m) {
            auto const& comb = f.combinations[static_cast<std::size_t>(g.member[m])];
            float own[max_combination_legs] = {};
            with_sized_trade(tab.scenarios[comb.scenario[0]], [&](const auto& first) {
              shared_path_values<rng::host_normal_stream>(first, comb, tab, path, own);
            });
            constexpr std::int32_t in_order[max_combination_legs] = {0, 1, 2, 3};
            for (int k = 0; k < comb.legs; ++k) CHECK(same_float(value[comb.group_leg[k]], own[k]));
            CHECK(same_float(combined_value(comb, value, comb.group_leg), combined_value(comb, own, in_order)));
          }
          paying += value[0] > 0.0F ? 1 : 0;
        }
      }
      CHECK(paying > 0);  // some paths pay: the comparison is not of zeros alone
      // Vega's two legs from one walk: each leg's value is its own walk's.
      std::size_t pairs = 0;
      for (auto const& comb : f.combinations) {
        if (comb.variant_asset < 0) continue;
        ++pairs;
        for (std::uint64_t path = 0; path < 200; ++path) {
          float both[max_combination_legs] = {};
          with_sized_trade(tab.scenarios[comb.scenario[0]], [&](const auto& first) {
            variant_pair_values<rng::host_normal_stream>(first, comb, tab, path, both);
            for (int k = 0; k < 2; ++k) {
              float const own = exercise_sample<rng::host_normal_stream>(
                  same_kind(first, tab.scenarios[comb.scenario[k]]), tab, path);
              CHECK(same_float(both[k], own));
            }
          });
        }
      }
      // A vega an asset; one asset: rho and theta too (they move that asset's steps alone).
      CHECK(pairs == static_cast<std::size_t>(n == 1 ? 3 : n));
    }
  }
}

TEST_CASE("variant pairs: vega's legs differ in their own asset only; rho, theta and correlation legs walk alone")
{
  engine_options o;
  o.paths = 2000;
  o.steps = 8;
  for (bool heston : {true, false}) {
    INFO((heston ? "Heston" : "GBM"));
    auto const rows = rows_with_greeks(worst_of_put(4, 8), assets_market(4, heston), o);
    auto const& plan = *rows.plans.front();
    REQUIRE(plan.greeks.size() == rows.family.f.combinations.size());
    for (std::size_t g = 0; g < plan.greeks.size(); ++g) {
      auto const& c = rows.family.f.combinations[g];
      INFO("Greek " << g);
      if (plan.greeks[g].slot == detail::greek_slot::vega) {
        CHECK(c.variant_asset == static_cast<std::int32_t>(plan.greeks[g].index));
      } else {
        CHECK(c.variant_asset == -1);
      }
    }
  }
}

TEST_CASE(
    "shared walks: legs moving one, two or three spots each keep their own walk's bits; legs with another "
    "strike or weight do not share (host mirror)")
{
  engine_options o;
  o.paths = 1024;
  o.steps = 12;
  for (bool heston : {true, false}) {
    for (int n : {1, 3, 5}) {
      INFO((heston ? "Heston, " : "GBM, ") << n << " assets");
      auto rows = rows_with_greeks(worst_of_put(n, 12), assets_market(n, heston), o);
      auto& f = rows.family.f;
      auto const shared =
          std::find_if(f.combinations.begin(), f.combinations.end(), [](const auto& c) { return c.shared_path != 0; });
      REQUIRE(shared != f.combinations.end());
      std::int32_t const base = shared->scenario[0];
      // Scenarios beside the base one: (spots scaled, strike scale, a weight changed).
      struct variant {
        std::vector<int> moved;
        float strike_scale;
        bool weight;
      };
      std::vector<variant> variants{{{}, 1.0F, false}, {{0}, 1.0F, false}};
      if (n > 1) variants.push_back({{0, n - 1}, 1.0F, false});
      if (n > 2) variants.push_back({{0, 1, 2}, 1.0F, false});
      // Deciding otherwise than the walk's record (shared_walk_values reads only a leg's spots).
      std::vector<variant> apart{{{}, 1.02F, false}};
      if (n > 1) apart.push_back({{}, 1.0F, true});
      std::vector<std::int32_t> legs{base};
      std::vector<std::int32_t> others;
      for (std::size_t vi = 0; vi < variants.size() + apart.size(); ++vi) {
        auto const& v = vi < variants.size() ? variants[vi] : apart[vi - variants.size()];
        exercise_trade s = f.scenarios[static_cast<std::size_t>(base)];
        auto const first = static_cast<std::size_t>(s.first_asset);
        std::vector<exercise_asset> assets(f.assets.begin() + static_cast<std::ptrdiff_t>(first),
                                           f.assets.begin() + static_cast<std::ptrdiff_t>(first) + n);
        for (int i : v.moved) assets[static_cast<std::size_t>(i)].spot *= 1.01F;
        if (v.weight) {
          assets[1].weight *= 1.5F;
          s.unit_weights = 0;
        }
        s.strike *= v.strike_scale;
        s.first_asset = static_cast<std::int32_t>(f.assets.size());
        f.assets.insert(f.assets.end(), assets.begin(), assets.end());
        f.scenarios.push_back(s);
        (vi < variants.size() ? legs : others).push_back(static_cast<std::int32_t>(f.scenarios.size() - 1));
      }
      for (std::int32_t k : legs)
        CHECK(detail::same_decisions(f, f.scenarios[static_cast<std::size_t>(base)],
                                     f.scenarios[static_cast<std::size_t>(k)]));
      for (std::int32_t k : others)
        CHECK_FALSE(detail::same_decisions(f, f.scenarios[static_cast<std::size_t>(base)],
                                           f.scenarios[static_cast<std::size_t>(k)]));
      calibrated const cal(f);
      exercise_tables const& tab = cal.tables;
      std::size_t paying = 0;
      std::size_t early = 0;
      with_sized_trade(tab.scenarios[base], [&](const auto& first) {
        for (std::uint64_t path = 0; path < 300; ++path) {
          float value[max_group_legs];
          shared_walk_values<rng::host_normal_stream>(first, legs.data(), static_cast<int>(legs.size()), tab, path,
                                                      value);
          for (std::size_t k = 0; k < legs.size(); ++k) {
            auto const leg = same_kind(first, tab.scenarios[legs[k]]);
            CHECK(same_float(value[k], exercise_sample<rng::host_normal_stream>(leg, tab, path)));
            paying += value[k] > 0.0F ? 1 : 0;
          }
          // Exercised before maturity somewhere: the regressed decisions were compared, not only payoffs.
          walk_exercise_path<rng::host_normal_stream>(first, tab, first.key, path, [&](int d, const exercise_state& s) {
            float v = 0.0F;
            bool const stop = stops_at(first, tab, d, s, v);
            early += stop && d + 1 < first.dates ? 1 : 0;
            return stop;
          });
        }
      });
      CHECK(paying > 0);
      CHECK(early > 0);
    }
  }
}

TEST_CASE("calibration sums: the fixed and moving parts are every component once")
{
  std::vector<int> seen(regression_doubles, 0);
  for (int k = 0; k < part_doubles<sums_part::fixed>; ++k)
    ++seen[static_cast<std::size_t>(part_component<sums_part::fixed>(k))];
  for (int k = 0; k < part_doubles<sums_part::moving>; ++k)
    ++seen[static_cast<std::size_t>(part_component<sums_part::moving>(k))];
  for (int c = 0; c < regression_doubles; ++c) CHECK(seen[static_cast<std::size_t>(c)] == 1);
  // The fixed part is what the decisions cannot change: the products and the count in the money.
  regression_sums s{};
  auto const at = [&](const double& field) { return static_cast<int>(&field - reinterpret_cast<const double*>(&s)); };
  CHECK(part_component<sums_part::fixed>(regression_fixed_doubles - 1) == at(s.in_the_money));
  CHECK(part_component<sums_part::moving>(0) == at(s.xy[0]));
  CHECK(part_component<sums_part::moving>(regression_moving_doubles - 1) == at(s.total_sq));
}

TEST_CASE("walk groups: a trade's groups hold as many legs as leave their walks warps enough for the GPU")
{
  // 5 assets x 25,000 paths: 51 spot legs on 782 warps a walk; 10 assets x 100,000: 201 on 3,125.
  CHECK(detail::walk_group_legs(51, 25'000) == 13);
  CHECK(detail::walk_group_legs(201, 100'000) == max_group_legs);
  CHECK(detail::walk_group_legs(51, 2'000) == tuning::exercise_walk_min_legs);  // few paths: small groups
  for (std::int64_t paths = 1'000; paths < 400'000; paths += 7'919) {
    CHECK(detail::walk_group_legs(51, paths) <= detail::walk_group_legs(51, paths + 7'919));
  }
  engine_options o;
  o.paths = 25'000;
  o.steps = 8;
  auto const rows = rows_with_greeks(worst_of_put(5, 8), assets_market(5, true), o);
  auto const& f = rows.family.f;
  int const legs =
      tuning::exercise_sized(5) ? detail::walk_group_legs(51, 25'000, tuning::exercise_sized_walk_warps) : 13;
  CHECK(detail::walk_group_legs(51, 25'000, 2112) == 19);  // two blocks an SM resident, not three
  REQUIRE(detail::walk_group_legs(f, 0, f.combinations.size()) == legs);
  REQUIRE_FALSE(f.walk_groups.empty());
  for (auto const& g : f.walk_groups) CHECK(g.legs <= legs);
}
