#pragma once
// One price-batch run split across MPI ranks (docs/scale-out.md). Every rank reads the inputs,
// takes its part of the book (work_split.hpp: the same split on every rank, by estimated
// cost), prices it on its own GPU or the CPU, and sends its results to rank 0, which writes the
// whole run in input order. Ranks meet at checkpoints: a rank that fails says why there, and
// every rank then stops together, rank 0 naming the failed ranks and their hosts.
#include "mcprice/engine.hpp"
#include "mcprice/work_split.hpp"
#include "rank_world.hpp"

#include <exception>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace mcprice::cli {

// Thrown on every rank when some rank failed at a checkpoint; `report` on rank 0 only, so the
// failure is printed once.
class rank_failure : public std::runtime_error {
 public:
  rank_failure(const std::string& what, bool report) : std::runtime_error(what), report_(report) {}
  [[nodiscard]] bool report() const noexcept { return report_; }

 private:
  bool report_;
};

// What a failure says, as price-batch prints it after "price-batch: ".
std::string describe_failure(const std::exception_ptr& e);

class rank_run {
 public:
  explicit rank_run(rank_world* world);  // null: a single process

  [[nodiscard]] bool split() const { return world_ != nullptr && world_->size() > 1; }
  [[nodiscard]] bool first() const { return !split() || world_->rank() == 0; }
  [[nodiscard]] const std::vector<std::string>& hosts() const { return hosts_; }  // by rank; empty unless split
  [[nodiscard]] std::string prefix() const;     // "rank R (host H): " before a rank's messages; empty for one process
  [[nodiscard]] std::string placement() const;  // "N ranks on M hosts"; empty for one process

  // f(), and with several ranks a checkpoint after it: if any rank's f threw, every rank throws
  // rank_failure. With one process, f's exception goes through unchanged.
  template <typename F>
  auto checkpoint(F&& f) -> decltype(f())
  {
    if (!split()) return f();
    std::exception_ptr failure;
    try {
      if constexpr (std::is_void_v<decltype(f())>) {
        f();
        settle(nullptr);
        return;
      } else {
        auto value = f();
        settle(nullptr);
        return value;
      }
    } catch (const rank_failure&) {
      throw;
    } catch (...) {
      failure = std::current_exception();
    }
    settle(failure);
    throw std::logic_error("unreachable: settle throws after a failure");
  }

  // This rank's engine settings: its GPU from its node-local rank, in turn over the GPUs that
  // --devices names (default every usable one) unless --device pins one; CPU threads shared
  // between the node's ranks unless --threads says. None of these changes the numbers.
  [[nodiscard]] engine_options engine_settings(const engine_options& o, bool device_given, bool threads_given) const;

  // Every rank's part of the book (the same on every rank), and this rank's.
  [[nodiscard]] std::vector<trade_range> parts(const portfolio& book, const market_data& market,
                                               const engine_options& o) const;
  [[nodiscard]] trade_range mine(const std::vector<trade_range>& parts) const;

  // Every rank's run to rank 0, merged in input order (a book of `trades` trades); nullopt on
  // the other ranks.
  [[nodiscard]] std::optional<pricing_run> gather(pricing_run mine, const std::vector<trade_range>& parts,
                                                  std::size_t trades);

  // Tests' fault injection: throws on the rank that MCPRICE_FAIL_RANK names (docs/scale-out.md),
  // to show that the others stop with it and the failure names its rank and host.
  void fail_if_injected() const;

  // Rank 0's exit status, on every rank.
  [[nodiscard]] int agree(int status);

 private:
  [[noreturn]] void fail_together(const std::vector<std::string>& errors);
  void settle(const std::exception_ptr& failure);

  rank_world* world_;
  std::vector<std::string> hosts_;
};

}  // namespace mcprice::cli
