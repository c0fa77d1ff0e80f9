#pragma once
// A thread that sends requests' stops, so that a stop never waits for the request's own thread.
// That thread may be blocked for seconds while its first jobs already run (queueing its next
// jobs; docs/reliability.md). Its jobs then ran to their end, seconds with Greeks, since only
// its own collection sent their stop. Each request that its caller may cancel is watched from
// its upload to its collection: the watch runs the request's poll (job_runner::stop_if_cancelled)
// a millisecond apart.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <utility>

namespace mcprice::detail {

class stop_watch {
 public:
  // on_start runs once on the watch's thread before any poll (the device the polls use).
  explicit stop_watch(std::function<void()> on_start);
  ~stop_watch();
  stop_watch(const stop_watch&) = delete;
  stop_watch& operator=(const stop_watch&) = delete;

  // One watched request: polled until reset or destroyed, after which no poll of it runs. A poll
  // that throws is not run again; reset() hands its error to the request's thread.
  class entry {
   public:
    entry() = default;
    entry(stop_watch* watch, std::uint64_t id) : watch_(watch), id_(id) {}
    ~entry() { reset(); }
    entry(entry&& o) noexcept : watch_(std::exchange(o.watch_, nullptr)), id_(o.id_) {}
    entry& operator=(entry&&) = delete;
    entry(const entry&) = delete;
    entry& operator=(const entry&) = delete;
    // Ends the watch (idempotent); returns the error of a poll that failed, if one did.
    std::exception_ptr reset() noexcept;

   private:
    stop_watch* watch_{nullptr};
    std::uint64_t id_{0};
  };

  [[nodiscard]] entry watch(std::function<void()> poll);
  static constexpr std::chrono::microseconds period{1000};

 private:
  struct watched {
    std::function<void()> poll;
    std::exception_ptr failure;
  };
  std::exception_ptr forget(std::uint64_t id) noexcept;
  void loop();

  std::function<void()> on_start_;
  std::mutex mutex_;  // held while a poll runs: forget() waits for a poll under way
  std::condition_variable wake_;
  std::map<std::uint64_t, watched> watched_;
  std::uint64_t next_id_{1};
  bool stopping_{false};
  std::thread thread_;  // started at the first watch
};

}  // namespace mcprice::detail
