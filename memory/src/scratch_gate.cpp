#include "mcprice/memory/scratch_gate.hpp"

#include <algorithm>

namespace mcprice {

bool scratch_gate::fits(std::size_t bytes) const noexcept
{
  if (!open()) return false;
  // A job with no other job admitted goes through (holders aside): the pool then decides.
  return stats_.budget == 0 || stats_.in_use == held_ || stats_.in_use + bytes <= stats_.budget;
}

void scratch_gate::admit(std::size_t bytes) noexcept
{
  stats_.in_use += bytes;
  stats_.peak = std::max(stats_.peak, stats_.in_use);
}

void scratch_gate::acquire(std::size_t bytes)
{
  std::unique_lock<std::mutex> lock(mutex_);
  if (!fits(bytes)) {
    auto const start = std::chrono::steady_clock::now();
    ++stats_.waits;
    released_.wait(lock, [&] { return fits(bytes); });
    stats_.wait_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  admit(bytes);
}

void scratch_gate::acquire_alone(std::size_t bytes)
{
  std::unique_lock<std::mutex> lock(mutex_);
  auto const start = std::chrono::steady_clock::now();
  ++stats_.alone_waits;
  ++waiting_alone_;
  // Jobs admitted alone go one at a time; the others wait behind them (fits is closed).
  released_.wait(lock, [&] { return stats_.in_use == held_ && !alone_; });
  --waiting_alone_;
  alone_ = true;
  stats_.wait_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  admit(bytes);
}

void scratch_gate::add_alone(std::size_t bytes) noexcept
{
  std::lock_guard<std::mutex> lock(mutex_);
  admit(bytes);
}

bool scratch_gate::try_acquire(std::size_t bytes) { return try_admit(bytes, false); }

bool scratch_gate::try_admit(std::size_t bytes, bool hold)
{
  std::lock_guard<std::mutex> lock(mutex_);
  if (!fits(bytes)) {
    ++stats_.refusals;
    return false;
  }
  admit(bytes);
  if (hold) held_ += bytes;
  return true;
}

void scratch_gate::release(std::size_t bytes) noexcept
{
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stats_.in_use -= std::min(bytes, stats_.in_use);
    if (stats_.in_use <= held_) alone_ = false;
  }
  released_.notify_all();
}

bool scratch_gate::try_hold(std::size_t bytes) { return try_admit(bytes, true); }

void scratch_gate::release_held(std::size_t bytes) noexcept
{
  {
    std::lock_guard<std::mutex> lock(mutex_);
    std::size_t const b = std::min(bytes, held_);
    held_ -= b;
    stats_.in_use -= std::min(b, stats_.in_use);
  }
  released_.notify_all();
}

gate_statistics scratch_gate::statistics() const
{
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

}  // namespace mcprice
