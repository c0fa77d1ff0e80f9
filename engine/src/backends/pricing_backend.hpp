#pragma once
// A backend turns a family's trades into per-trade sums. Both backends evaluate the same
// canonical blocks with the same per-path code (the families' lanes, family_list.hpp); they
// differ only in who runs the blocks.
#include "backends/family_run.hpp"
#include "families/exercise_family.hpp"
#include "families/family_list.hpp"
#include "mcprice/engine.hpp"
#include "mcprice/memory_report.hpp"
#include "testing/engine_knobs.hpp"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mcprice::detail {

// A request of one registered family: its batch (records numbered in blocks from 0, in order),
// and whether its Greeks are asked for (a family without Greek lanes prices alone).
struct family_request {
  registered_families::batch_ref batch;
  bool greeks{false};
};

class pricing_backend {
 public:
  virtual ~pricing_backend() = default;
  virtual family_run run(const family_request& request, const run_control& control) const = 0;
  // American and Bermudan trades: the backward calibration of each trade's exercise policy
  // (from f, the trades' tables alone), then its pricing paths under that policy (sums), with
  // continuation_today; then, where `with_greeks` gives a family (f's trades with their Greek
  // scenarios and combinations, packed; asked for once the calibration is under way: it may
  // still be being built), the Greek combinations under the same policy.
  virtual family_run run_early_exercise(const exercise_family& f,
                                        const std::function<const packed_exercise_family*()>& with_greeks,
                                        const run_control& control) const = 0;
  // The same in double (--precision double). The GPU backend's run on the host's cores.
  virtual family_run run_early_exercise(const basic_exercise_family<double>& f,
                                        const std::function<const basic_packed_exercise_family<double>*()>& with_greeks,
                                        const run_control& control) const = 0;
  [[nodiscard]] virtual backend_kind kind() const noexcept = 0;
  [[nodiscard]] virtual const std::string& name() const noexcept = 0;
  [[nodiscard]] virtual std::optional<memory_report> memory() const { return std::nullopt; }
  virtual void trim_memory() const {}
};

std::unique_ptr<pricing_backend> make_cpu_backend(unsigned threads, rng_kind rng, const market_data& market);
std::unique_ptr<pricing_backend> make_gpu_backend(const engine_options& options, const engine_knobs& knobs,
                                                  const market_data& market, std::vector<std::string>& notices);

}  // namespace mcprice::detail
