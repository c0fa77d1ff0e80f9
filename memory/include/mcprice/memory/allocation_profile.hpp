#pragma once
// An allocation profile (docs/memory.md, "Budgets from a recorded profile"): every scratch
// allocation's request, what the pool granted, the job and stream that asked, and when it was
// allocated and freed; each job's high watermark; and the most bytes requested live at once.
// The size classes, the per-job cap and the pool limit can then be read off a histogram of real
// books (`price-batch --suggest-budget`) rather than guessed. Plain C++, recorded on the host.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace mcprice {

struct allocation_record {
  std::string job;
  std::uint64_t stream{0};  // the stream's handle, as a number: which allocations shared a stream
  std::size_t bytes{0};     // requested (charged against the job's cap)
  std::size_t granted{0};   // after the pool's rounding (its size class)
  double allocated_at{0.0};  // host seconds since recording began
  double freed_at{-1.0};     // -1: still live when the profile was taken
};

struct job_peak {
  std::string job;
  std::size_t peak_bytes{0};  // the most the job's lease held at once (requested bytes)
};

struct allocation_profile {
  std::vector<allocation_record> allocations;
  std::vector<job_peak> jobs;
  std::size_t peak_bytes{0};  // requested bytes live at once, at most
};

// Thread-safe: the engine's jobs record into one recorder from every submitting thread.
class allocation_recorder {
 public:
  allocation_recorder() : start_(std::chrono::steady_clock::now()) {}

  // Returns the record's number, for freed().
  std::size_t allocated(const std::string& job, std::uint64_t stream, std::size_t bytes, std::size_t granted);
  void freed(std::size_t record) noexcept;
  void job_ended(const std::string& job, std::size_t peak_bytes);
  [[nodiscard]] allocation_profile snapshot() const;

 private:
  [[nodiscard]] double now() const noexcept;

  std::chrono::steady_clock::time_point start_;
  mutable std::mutex mutex_;
  allocation_profile profile_;
  std::size_t live_{0};
};

}  // namespace mcprice
