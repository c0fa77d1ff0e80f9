#pragma once
// Threads kept for an engine's host work (pipeline chunks, families side by side, per-trade
// loops), started when first needed and reused by later calls: starting and joining a thread
// costs tens of microseconds on the GPU host, as much as the work of a small chunk. A task
// never queues behind a busy thread (a new one starts), so tasks may block on each other,
// as a chunk blocks on its families and on the chunk before it. Idle threads sleep: letting a
// few poll for work before sleeping (a sleeping thread took 50-150 us to wake on the GPU host)
// measured the same on the pipelined European book (3.61-3.73 ms polling, 3.64-3.67 ms not,
// alternating on one H200 host), and busy threads can starve the working ones on a loaded host.
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

namespace mcprice::detail {

class thread_cache {
 public:
  thread_cache() = default;
  thread_cache(const thread_cache&) = delete;
  thread_cache& operator=(const thread_cache&) = delete;
  ~thread_cache();  // lets running tasks finish, then joins every thread

  // Runs f on an idle thread of the cache, or on a new one; throws, with nothing queued, when no
  // thread can be started.
  template <typename F>
  auto run(F&& f) -> std::future<std::invoke_result_t<std::decay_t<F>>>
  {
    using R = std::invoke_result_t<std::decay_t<F>>;
    auto task = std::make_shared<std::packaged_task<R()>>(std::forward<F>(f));
    auto result = task->get_future();
    post([task] { (*task)(); });
    return result;
  }

  [[nodiscard]] std::size_t threads() const;

 private:
  void post(std::function<void()> job);
  void work();

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> jobs_;
  std::vector<std::thread> threads_;
  std::size_t idle_{0};  // threads waiting for a job
  bool stopping_{false};
};

}  // namespace mcprice::detail
