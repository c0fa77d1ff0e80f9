#pragma once
// A job's hold on the scratch pool, bounded by a byte cap. An allocation past the cap throws
// scratch_cap_exceeded and never reaches the pool. Under a scratch gate (a pool limit) each
// allocation is first admitted in the pool's units: a lease that holds no admission waits for
// it; one that holds some and cannot get more throws scratch_busy with its whole need (it must
// not wait while holding). A pool out of memory under a gate throws scratch_busy too, asking to
// come again alone, unless the lease was admitted alone: then the job's need is beyond the limit
// and out_of_memory passes. Everything still held is returned, in stream order, when the lease
// ends.
#include "mcprice/memory/allocation_profile.hpp"
#include "mcprice/memory/memory_resource.hpp"
#include "mcprice/memory/scratch_gate.hpp"

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace mcprice {

class scratch_lease {
 public:
  // cap 0 = no cap. on_rejection is told of each cap rejection (the pool's statistics).
  scratch_lease(memory_resource& pool, stream_view s, std::size_t cap, std::string job,
                std::function<void()> on_rejection = {}, scratch_gate* gate = nullptr);
  ~scratch_lease();
  scratch_lease(const scratch_lease&) = delete;
  scratch_lease& operator=(const scratch_lease&) = delete;

  [[nodiscard]] void* allocate(std::size_t bytes);
  template <typename T>
  [[nodiscard]] T* allocate_n(std::size_t n)
  {
    return static_cast<T*>(allocate(n * sizeof(T)));
  }
  void deallocate(void* p) noexcept;
  void release_all() noexcept;
  // Waits for admission of `bytes` (a job's whole need, known from a refused first try) before
  // any allocation, so the job's allocations then need no more; `alone`: with no other job
  // admitted until this lease ends (scratch_gate::acquire_alone).
  void admit(std::size_t bytes, bool alone = false);

  // Records every allocation of this lease, and its high watermark when it ends (null: none).
  void record_into(allocation_recorder* recorder) noexcept { recorder_ = recorder; }

  [[nodiscard]] std::size_t in_use() const noexcept { return in_use_; }
  [[nodiscard]] std::size_t cap() const noexcept { return cap_; }
  [[nodiscard]] stream_view stream() const noexcept { return stream_; }
  // Bytes a request counts against the cap: rounded up to 256, the pool's granule.
  static constexpr std::size_t charged(std::size_t bytes) { return (bytes + 255) / 256 * 256; }

 private:
  struct held {
    void* ptr;
    std::size_t bytes;
    std::size_t granted;
    std::size_t record;  // in recorder_, where there is one
  };
  void forget(const held& h) noexcept;
  memory_resource& pool_;
  stream_view stream_;
  std::size_t cap_;
  std::string job_;
  std::function<void()> on_rejection_;
  scratch_gate* gate_;
  std::size_t admitted_{0};  // held from the gate
  bool alone_{false};        // admitted alone
  std::size_t granted_{0};   // of which in use, in the pool's units
  std::vector<held> held_;
  std::size_t in_use_{0};
  std::size_t peak_in_use_{0};
  allocation_recorder* recorder_{nullptr};
};

}  // namespace mcprice
