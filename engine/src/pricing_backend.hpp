#pragma once
// A backend turns European jobs into per-trade moments. Both backends evaluate the same
// canonical blocks with the same per-path code; they differ only in who runs the blocks.
#include "mcprice/engine.hpp"
#include "mcprice/kernels/european_gbm.hpp"
#include "mcprice/kernels/moments.hpp"

#include <memory>
#include <string>
#include <vector>

namespace mcprice::detail {

class pricing_backend {
 public:
  virtual ~pricing_backend() = default;
  // trades[i].first_block must be the running sum of the blocks of trades[0..i).
  virtual std::vector<moments> run_european(const std::vector<european_gbm_trade>& trades,
                                            std::int64_t total_blocks,
                                            const progress_callback& progress) const = 0;
  [[nodiscard]] virtual backend_kind kind() const noexcept = 0;
  [[nodiscard]] virtual const std::string& name() const noexcept = 0;
};

std::unique_ptr<pricing_backend> make_cpu_backend(unsigned threads);
std::unique_ptr<pricing_backend> make_gpu_backend(int device, int grid_blocks);

// The canonical block of each trade, for both backends: first_block of the last trade at or
// before `block`.
std::size_t trade_of_block(const std::vector<european_gbm_trade>& trades, std::int64_t block);

}  // namespace mcprice::detail
