#include "mcprice/memory/allocation_profile.hpp"

#include <algorithm>

namespace mcprice {

double allocation_recorder::now() const noexcept
{
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

std::size_t allocation_recorder::allocated(const std::string& job, std::uint64_t stream, std::size_t bytes,
                                           std::size_t granted)
{
  std::lock_guard<std::mutex> lock(mutex_);
  profile_.allocations.push_back({job, stream, bytes, granted, now(), -1.0});
  live_ += bytes;
  profile_.peak_bytes = std::max(profile_.peak_bytes, live_);
  return profile_.allocations.size() - 1;
}

void allocation_recorder::freed(std::size_t record) noexcept
{
  std::lock_guard<std::mutex> lock(mutex_);
  if (record >= profile_.allocations.size()) return;
  allocation_record& r = profile_.allocations[record];
  if (r.freed_at >= 0.0) return;
  r.freed_at = now();
  live_ -= r.bytes;
}

void allocation_recorder::job_ended(const std::string& job, std::size_t peak_bytes)
{
  std::lock_guard<std::mutex> lock(mutex_);
  profile_.jobs.push_back({job, peak_bytes});
}

allocation_profile allocation_recorder::snapshot() const
{
  std::lock_guard<std::mutex> lock(mutex_);
  return profile_;
}

}  // namespace mcprice
