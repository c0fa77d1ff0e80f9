#include "families/request_families.hpp"

#include "families/trade_route.hpp"
#include "products/early_exercise_setup.hpp"
#include "products/jump_terms.hpp"
#include "products/stream_keys.hpp"
#include "products/trade_validation.hpp"
#include "runtime/parallel_for.hpp"

#include <algorithm>
#include <memory>
#include <optional>
#include <utility>
#include <variant>

namespace mcprice::detail {
namespace {

// A family's job as a chunk's job list holds it: boxed where the family says so.
template <typename Family>
using job_slot = std::conditional_t<Family::boxed_job, std::unique_ptr<typename Family::job>, typename Family::job>;

template <typename List, typename... Extra>
struct job_variant_of;
template <typename... Families, typename... Extra>
struct job_variant_of<family_list<Families...>, Extra...> {
  using type = std::variant<job_slot<Families>..., Extra...>;
};

// A trade's work: a registered family's job (the variant's index is the family's place in the
// list), or an early-exercise job (float, or double under --precision double), boxed: it is
// twice the size of the others, and a chunk's jobs are fresh memory every call (first touching a
// page cost 1-3 us on the GPU host).
using trade_job = typename job_variant_of<registered_families, std::unique_ptr<exercise_job>,
                                          std::unique_ptr<basic_exercise_job<double>>>::type;
constexpr std::size_t exercise_slot = registered_families::size;
constexpr std::size_t double_exercise_slot = exercise_slot + 1;

template <typename T>
T& unboxed(T& job)
{
  return job;
}
template <typename T>
T& unboxed(std::unique_ptr<T>& job)
{
  return *job;
}

// The job of the first family that takes the route (no two take the same).
template <std::size_t I = 0>
std::optional<trade_job> build_in_family(const trade_route& r, const market_data& market, const engine_options& options)
{
  if constexpr (I == registered_families::size) {
    return std::nullopt;
  } else {
    using family = typename registered_families::template at<I>;
    if (!family::takes(r)) return build_in_family<I + 1>(r, market, options);
    if constexpr (family::boxed_job) {
      return trade_job(std::in_place_index<I>,
                       std::make_unique<typename family::job>(family::make_job(r, market, options)));
    } else {
      return trade_job(std::in_place_index<I>, family::make_job(r, market, options));
    }
  }
}

// Fills `message` (why the trade cannot be priced) or returns the trade's kernel work.
std::optional<trade_job> build_checked(const trade& t, std::string& message, const market_data& market,
                                       const engine_options& options)
{
  message = t.row_error;
  std::size_t first_underlying = 0;  // found by the checks: the one market lookup of a vanilla
  if (message.empty()) message = validate_trade(t, market, &first_underlying);
  if (message.empty() && t.paths && *t.paths > max_paths_per_trade) {
    message = "trade " + t.id + ": paths " + std::to_string(*t.paths) + " exceeds the limit " +
              std::to_string(max_paths_per_trade);
  }
  if (message.empty()) message = unsupported_feature(t, market);
  if (!message.empty()) return std::nullopt;
  // Jump assets too: the walk steps their jumps exactly between dates (the basket family does not).
  bool const walked_assets =
      multi_asset(t.product) && std::any_of(t.underlyings.begin(), t.underlyings.end(), [&](const std::string& name) {
        const asset& a = market.assets()[*market.find(name)];
        return a.model != model_kind::gbm || jump_intensity(a) > 0.0;
      });
  // A worst-of on local-vol assets beside GBM ones, or on Heston or jump ones (local-vol and GBM
  // ones beside them): the Heston worst-of walk steps GBM assets exactly, every asset's jumps,
  // and local-vol assets on their grids.
  auto const worst_of_on = [&](auto&& is) {
    return t.product == product_kind::autocallable && t.underlyings.size() > 1 &&
           std::any_of(t.underlyings.begin(), t.underlyings.end(),
                       [&](const std::string& name) { return is(market.assets()[*market.find(name)]); });
  };
  bool const local_vol = worst_of_on([](const asset& a) { return a.model == model_kind::local_vol; });
  bool const heston_or_jumps =
      worst_of_on([](const asset& a) { return a.model == model_kind::heston || jump_intensity(a) > 0.0; });
  trade_route const r{t,
                      market.assets()[first_underlying],
                      options.precision == path_precision::float64,
                      options.greeks,
                      walked_assets,
                      local_vol && !heston_or_jumps,
                      heston_or_jumps,
                      local_vol && heston_or_jumps};
  if (!r.european_exercise() || r.walked_assets) {
    // Early exercise, and baskets with Heston, local-vol or jump assets (GBM ones beside them too):
    // the early-exercise walk (a European as one date).
    if (r.in_double) {
      return trade_job(std::in_place_index<double_exercise_slot>,
                       std::make_unique<basic_exercise_job<double>>(make_exercise_job<double>(t, market, options)));
    }
    return trade_job(std::in_place_index<exercise_slot>,
                     std::make_unique<exercise_job>(make_exercise_job(t, market, options)));
  }
  auto job = build_in_family(r, market, options);
  if (!job) message = "trade " + t.id + ": no pricing family takes this trade";
  return job;
}

std::optional<trade_job> check_and_build(const trade& t, std::string& message, const market_data& market,
                                         const engine_options& options)
{
  try {
    return build_checked(t, message, market, options);
  } catch (const trade_refused& e) {
    message = e.what();
    return std::nullopt;
  }
}

// The job into its family's batch (the variant's index is the family's place in the list).
template <std::size_t... I>
void add_to_batch(request_families& f, trade_job& job, std::size_t row, std::index_sequence<I...>)
{
  ((job.index() == I ? std::get<I>(f.priced).add(unboxed(std::get<I>(job)), row) : void()), ...);
}

// The Greek book of the rows' trades, started on a kept thread.
template <typename Real>
void start_greeks(basic_exercise_rows<Real>& rows, const portfolio& trades, const market_data& market,
                  const engine_options& options, thread_cache& threads)
{
  if (rows.f.trades.empty()) return;
  std::vector<trade> exercised;
  for (std::size_t const row : rows.rows) exercised.push_back(trades.trades[row]);
  rows.start_greeks(std::move(exercised), market, options, threads);
}

}  // namespace

request_families prepare_rows(const portfolio& trades, std::size_t begin, std::size_t end, const market_data& market,
                              const engine_options& options, thread_cache& threads, std::size_t trades_per_thread)
{
  std::vector<std::optional<trade_job>> jobs(end - begin);
  std::vector<std::string> messages(end - begin);
  parallel_for(
      threads, end - begin,
      [&](std::size_t k) { jobs[k] = check_and_build(trades.trades[begin + k], messages[k], market, options); },
      trades_per_thread);
  request_families f;
  for (std::size_t k = 0; k < jobs.size(); ++k) {
    std::size_t const i = begin + k;
    if (!jobs[k]) {
      f.rejected.emplace_back(i, std::move(messages[k]));
    } else if (jobs[k]->index() == exercise_slot) {
      f.exercises.add_job(*std::get<exercise_slot>(*jobs[k]), i);
    } else if (jobs[k]->index() == double_exercise_slot) {
      f.double_exercises.add_job(*std::get<double_exercise_slot>(*jobs[k]), i);
    } else {
      add_to_batch(f, *jobs[k], i, std::make_index_sequence<registered_families::size>{});
    }
  }
  if (options.greeks) {
    start_greeks(f.exercises, trades, market, options, threads);
    start_greeks(f.double_exercises, trades, market, options, threads);
  }
  return f;
}

}  // namespace mcprice::detail
