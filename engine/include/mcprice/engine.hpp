#pragma once
// The pricing engine: market data in, results out. An engine is immutable after construction
// and price() may be called from several host threads at once; each call has its own device
// stream and buffers.
#include "mcprice/market.hpp"
#include "mcprice/memory_report.hpp"
#include "mcprice/portfolio.hpp"
#include "mcprice/results.hpp"
#include "mcprice/settings.hpp"

#include <atomic>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mcprice {

namespace detail {
struct engine_knobs;  // tests and benchmarks only (engine/src/testing/engine_knobs.hpp)
}

// Called with (samples done, samples in the request); from the calling thread.
using progress_callback = std::function<void(std::int64_t, std::int64_t)>;

class engine {
 public:
  // Throws configuration_error when the options ask for a GPU that is not there.
  explicit engine(market_data market, engine_options options = {});
  // The same with settings that exist for tests and benchmarks alone (the same bits, slower);
  // their type is not part of the public headers.
  engine(market_data market, engine_options options, const detail::engine_knobs& knobs);
  ~engine();
  engine(engine&&) noexcept;
  engine& operator=(engine&&) noexcept;
  engine(const engine&) = delete;
  engine& operator=(const engine&) = delete;

  // cancel: when another thread (a signal handler's flag) sets it, work not yet started is skipped
  // and its trades come back with status cancelled; work under way finishes. Under
  // engine_options::batch_window_us, calls that arrive together may be priced as one book; each
  // still gets its own rows and bits. A call in such a batch sees the batch's samples in its
  // progress, and when its cancel flag is set it returns at once with all its trades cancelled
  // (the batch goes on for the other calls, and stops when every call in it has been cancelled).
  [[nodiscard]] pricing_run price(const portfolio& trades, const progress_callback& progress = {},
                                  const std::atomic<bool>* cancel = nullptr) const;

  // Prices trades [begin, end) of a book into results[begin, end), leaving the other rows as
  // they are. For callers that split a book across engines themselves (as an engine on several
  // GPUs does): ranges of one book may be priced at once into one vector sized to the book.
  // `results` is sized to the book here when it is not already, unless sized_elsewhere is
  // valid: then another thread is sizing it, and rows are written once that is ready (first
  // touching a large vector costs milliseconds, overlapped so with preparing the range). Not on
  // an engine of several GPUs. The summary counts the range.
  run_summary price_range(const portfolio& trades, std::size_t begin, std::size_t end,
                          std::vector<trade_result>& results, const progress_callback& progress = {},
                          const std::atomic<bool>* cancel = nullptr,
                          std::shared_future<void> sized_elsewhere = {}) const;

  [[nodiscard]] backend_kind backend() const noexcept;
  [[nodiscard]] const std::string& device_name() const noexcept;
  [[nodiscard]] const engine_options& options() const noexcept;
  // Things the caller should tell the user, e.g. that auto fell back to the CPU.
  [[nodiscard]] const std::vector<std::string>& notices() const noexcept;
  // GPUs the engine prices on (engine_options::devices): 1 on one GPU or the CPU.
  [[nodiscard]] std::size_t device_count() const noexcept;
  // The GPU backend's memory on one of its devices (a position in engine_options::devices):
  // scratch pool statistics, driver pool usage, market buffers. Empty on the CPU backend.
  [[nodiscard]] std::optional<memory_report> memory(std::size_t device = 0) const;
  // Returns the scratch memory cached between requests to the device (waits for it to be idle).
  void trim_memory() const;

 private:
  struct impl;
  // price() without batching across callers (the batch's own call goes here).
  [[nodiscard]] pricing_run price_alone(const portfolio& trades, const progress_callback& progress,
                                        const std::atomic<bool>* cancel) const;
  std::unique_ptr<impl> impl_;
};

}  // namespace mcprice
