#include "backends/gpu/stop_watch.hpp"

#include <utility>

namespace mcprice::detail {

stop_watch::stop_watch(std::function<void()> on_start) : on_start_(std::move(on_start)) {}

stop_watch::~stop_watch()
{
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  try {
    if (thread_.joinable()) thread_.join();
  } catch (...) {
    // join fails only for a thread that cannot be joined: nothing is left to wait for.
  }
}

std::exception_ptr stop_watch::entry::reset() noexcept
{
  if (watch_ == nullptr) return nullptr;
  return std::exchange(watch_, nullptr)->forget(id_);
}

stop_watch::entry stop_watch::watch(std::function<void()> poll)
{
  std::uint64_t id = 0;
  bool was_idle = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!thread_.joinable()) thread_ = std::thread([this] { loop(); });
    id = next_id_++;
    was_idle = watched_.empty();
    watched_.emplace(id, watched{std::move(poll), nullptr});
  }
  // A busy watch is polling already: only an idle one sleeps until told.
  if (was_idle) wake_.notify_one();
  return entry(this, id);
}

std::exception_ptr stop_watch::forget(std::uint64_t id) noexcept
{
  std::lock_guard<std::mutex> lock(mutex_);
  auto const it = watched_.find(id);
  if (it == watched_.end()) return nullptr;
  std::exception_ptr failure = std::move(it->second.failure);
  watched_.erase(it);
  return failure;
}

void stop_watch::loop()
{
  // Without its device the watch cannot send a stop: every request it watches fails with why.
  std::exception_ptr no_start;
  try {
    if (on_start_) on_start_();
  } catch (...) {
    no_start = std::current_exception();
  }
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    if (watched_.empty()) {
      wake_.wait(lock, [this] { return stopping_ || !watched_.empty(); });
      continue;
    }
    for (auto& item : watched_) {
      watched& w = item.second;
      if (w.failure) continue;
      try {
        if (no_start) std::rethrow_exception(no_start);
        w.poll();
      } catch (...) {
        w.failure = std::current_exception();
      }
    }
    wake_.wait_for(lock, period, [this] { return stopping_; });
  }
}

}  // namespace mcprice::detail
