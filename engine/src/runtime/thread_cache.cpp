#include "runtime/thread_cache.hpp"

namespace mcprice::detail {

thread_cache::~thread_cache()
{
  {
    std::lock_guard<std::mutex> const lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto& t : threads_) t.join();
}

std::size_t thread_cache::threads() const
{
  std::lock_guard<std::mutex> const lock(mutex_);
  return threads_.size();
}

void thread_cache::post(std::function<void()> job)
{
  std::unique_lock<std::mutex> lock(mutex_);
  jobs_.push_back(std::move(job));
  // Every queued job needs a waiting thread of its own; otherwise a thread starts for it.
  if (jobs_.size() <= idle_) {
    lock.unlock();
    wake_.notify_one();
    return;
  }
  try {
    threads_.emplace_back([this] { work(); });
  } catch (...) {
    // No thread for it: the job leaves the queue, so a caller told so by the exception never
    // has it run later from a frame it has left.
    jobs_.pop_back();
    throw;
  }
}

void thread_cache::work()
{
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    if (jobs_.empty()) {
      if (stopping_) return;
      ++idle_;
      wake_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
      --idle_;
      continue;
    }
    auto job = std::move(jobs_.front());
    jobs_.pop_front();
    lock.unlock();
    job();  // a packaged_task: its exceptions go to its future
    lock.lock();
  }
}

}  // namespace mcprice::detail
