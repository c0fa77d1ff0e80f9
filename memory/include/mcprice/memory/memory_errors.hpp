#pragma once
// Allocation failures the engine reports to users: the pool ran out, or a job asked for more
// scratch than its cap allows, or must wait for room under the pool's limit.
#include <cstddef>
#include <stdexcept>
#include <string>

namespace mcprice {

class out_of_memory : public std::runtime_error {
 public:
  out_of_memory(const std::string& resource, std::size_t requested, std::size_t reserved, std::size_t limit);
  [[nodiscard]] std::size_t requested() const noexcept { return requested_; }

 private:
  std::size_t requested_;
};

class scratch_cap_exceeded : public std::runtime_error {
 public:
  scratch_cap_exceeded(std::string job, std::size_t requested, std::size_t cap, std::size_t in_use);
  [[nodiscard]] const std::string& job() const noexcept { return job_; }
  [[nodiscard]] std::size_t requested() const noexcept { return requested_; }
  [[nodiscard]] std::size_t cap() const noexcept { return cap_; }
  [[nodiscard]] std::size_t in_use() const noexcept { return in_use_; }

 private:
  std::string job_;
  std::size_t requested_;
  std::size_t cap_;
  std::size_t in_use_;
};

// A job that holds scratch admission asked the gate for more than fits now (scratch_gate), or
// the pool could not serve it beside other jobs under a limit (`alone`): it gives everything
// back and comes again asking for `needed` bytes at once, alone in the second case. Not a
// failure.
class scratch_busy : public std::runtime_error {
 public:
  scratch_busy(const std::string& job, std::size_t needed, bool alone = false);
  [[nodiscard]] std::size_t needed() const noexcept { return needed_; }
  [[nodiscard]] bool alone() const noexcept { return alone_; }

 private:
  std::size_t needed_;
  bool alone_;
};

}  // namespace mcprice
