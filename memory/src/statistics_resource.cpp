#include "mcprice/memory/statistics_resource.hpp"

#include <algorithm>
#include <chrono>

namespace mcprice {

resource_statistics statistics_resource::statistics() const
{
  std::lock_guard<std::mutex> lock(mutex_);
  resource_statistics s = stats_;
  s.latency_p50_us = latency_.percentile(0.50);
  s.latency_p99_us = latency_.percentile(0.99);
  return s;
}

void statistics_resource::reset_peak() noexcept
{
  std::lock_guard<std::mutex> lock(mutex_);
  stats_.requested_peak = stats_.requested;
}

void* statistics_resource::do_allocate(std::size_t bytes, stream_view s)
{
  auto const start = std::chrono::steady_clock::now();
  void* p = nullptr;
  try {
    p = upstream_.allocate(bytes, s);
  } catch (...) {
    std::lock_guard<std::mutex> lock(mutex_);
    ++stats_.failures;
    throw;
  }
  double const us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
  std::lock_guard<std::mutex> lock(mutex_);
  ++stats_.allocations;
  stats_.requested += bytes;
  stats_.requested_peak = std::max(stats_.requested_peak, stats_.requested);
  latency_.record(us);
  return p;
}

void statistics_resource::do_deallocate(void* p, std::size_t bytes, stream_view s) noexcept
{
  upstream_.deallocate(p, bytes, s);
  std::lock_guard<std::mutex> lock(mutex_);
  stats_.requested -= bytes;
}

}  // namespace mcprice
