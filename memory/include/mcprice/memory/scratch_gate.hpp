#pragma once
// Admission to scratch memory under a byte budget (`--pool-limit`), so that memory pressure
// makes jobs wait instead of fail. A job is admitted for bytes in the pool's own units
// (granted_size) before it allocates them; a job that already holds admission and needs more
// is never made to wait (two such jobs could wait on each other forever): it is refused, gives
// everything back and comes again asking for its whole need at once (scratch_lease, the GPU
// backend's job loop). A lone job is always let through: the pool then decides, and a job too
// large for it fails alone with out_of_memory. Host-only and thread-safe.
#include "mcprice/memory/memory_statistics.hpp"

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>

namespace mcprice {

class scratch_gate {
 public:
  explicit scratch_gate(std::size_t budget = 0) : stats_{} { stats_.budget = budget; }
  // Before any job is admitted (the engine learns its pool's own limit after the gate is made).
  void set_budget(std::size_t budget) noexcept { stats_.budget = budget; }

  // Waits until `bytes` fit beside what is admitted, or until nothing is.
  void acquire(std::size_t bytes);
  // Waits until no job is admitted (holders aside), then admits `bytes` and no other job until
  // they are all released: a job the pool could not serve beside others comes again alone
  // before it fails.
  void acquire_alone(std::size_t bytes);
  // More for the job that holds the gate alone: admitted at once.
  void add_alone(std::size_t bytes) noexcept;
  // Admits `bytes` if they fit now; false (and a refusal counted) when they do not.
  [[nodiscard]] bool try_acquire(std::size_t bytes);
  void release(std::size_t bytes) noexcept;
  // The same for a long-lived holder (a cached graph's scratch, outside the pool): counted
  // against the budget, but never waited for by a job going alone.
  [[nodiscard]] bool try_hold(std::size_t bytes);
  void release_held(std::size_t bytes) noexcept;
  [[nodiscard]] gate_statistics statistics() const;
  [[nodiscard]] std::size_t budget() const noexcept { return stats_.budget; }

 private:
  [[nodiscard]] bool fits(std::size_t bytes) const noexcept;
  void admit(std::size_t bytes) noexcept;
  [[nodiscard]] bool try_admit(std::size_t bytes, bool hold);
  [[nodiscard]] bool open() const noexcept { return !alone_ && waiting_alone_ == 0; }

  mutable std::mutex mutex_;
  std::condition_variable released_;
  gate_statistics stats_;
  std::size_t held_{0};     // of stats_.in_use, by long-lived holders
  bool alone_{false};       // a job admitted alone holds the gate
  int waiting_alone_{0};    // jobs waiting to be admitted alone: no new job is let in meanwhile
};

}  // namespace mcprice
