#pragma once
// The registry: the one list of the families the backends price (early exercise, whose
// calibration comes first, has an entry point of its own). A family is a traits type that says
//   - its kernel record (record), the job its products' setup makes (job, make_job) and which
//     trades it takes (takes: no two families take the same trade);
//   - its tables beside the records (tables: how a job's are appended, and place(), their views
//     for a launch or a lane) and the normals a sample draws;
//   - its Greek method: greek_sums (void: none), greek_lane, launch_greeks and greeks_of, which
//     turns a trade's sums into its Greeks;
//   - its CPU lane (price_lane) and its GPU launches, fused (launch) and two-phase (two_phase,
//     launch_two_phase).
// A chunk's batches, the backends' requests and the chunk's pricing loop are generated from the
// list: adding a family is its traits file and one line here (docs/architecture.md).
#include "families/basket_family.hpp"
#include "families/european_family.hpp"
#include "families/family_batch.hpp"
#include "families/gbm_path_family.hpp"
#include "families/heston_family.hpp"
#include "families/heston_worst_of_family.hpp"
#include "families/local_vol_family.hpp"
#include "families/local_vol_worst_of_family.hpp"
#include "families/worst_of_family.hpp"

#include <cstddef>
#include <tuple>
#include <utility>
#include <variant>

namespace mcprice::detail {

template <typename... Families>
struct family_list {
  static constexpr std::size_t size = sizeof...(Families);
  template <std::size_t I>
  using at = std::tuple_element_t<I, std::tuple<Families...>>;
  // One batch a family, in list order: a chunk's priced trades.
  using batches = std::tuple<family_batch<Families>...>;
  // One family's batch, as a backend is asked to price it.
  using batch_ref = std::variant<const family_batch<Families>*...>;
};

// The order is the order in which a chunk's families are queued.
using registered_families =
    family_list<european_family, gbm_path_family, scenario_path_family, heston_family, local_vol_family,
                double_path_family, double_heston_family, double_local_vol_family, double_basket_family, basket_family,
                worst_of_family, double_worst_of_family, local_vol_worst_of_family, double_local_vol_worst_of_family,
                heston_worst_of_family, mixed_worst_of_family, double_heston_worst_of_family>;

using family_batches = registered_families::batches;

// f(batch) for every family's batch of a chunk, in list order.
template <typename Batches, typename F>
void for_each_batch(Batches& batches, F&& f)
{
  std::apply([&](auto&... batch) { (f(batch), ...); }, batches);
}

}  // namespace mcprice::detail
