#pragma once
// The spans of one traced call (engine_options::timeline), added from any thread.
#include "mcprice/results.hpp"

#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

namespace mcprice::detail {

class run_timeline {
 public:
  using clock = std::chrono::steady_clock;

  explicit run_timeline(clock::time_point origin) : origin_(origin) {}

  [[nodiscard]] double seconds(clock::time_point t) const { return std::chrono::duration<double>(t - origin_).count(); }
  [[nodiscard]] double now() const { return seconds(clock::now()); }

  void add(timeline_span span)
  {
    std::lock_guard<std::mutex> const lock(mutex_);
    spans_.push_back(std::move(span));
  }

  // A backend's clock reference for this call (a GPU event and the host second it was recorded
  // at), made once by `make` however many threads ask.
  std::shared_ptr<const void> reference(const std::function<std::shared_ptr<const void>()>& make)
  {
    std::lock_guard<std::mutex> const lock(mutex_);
    if (!reference_) reference_ = make();
    return reference_;
  }

  [[nodiscard]] std::vector<timeline_span> sorted() const
  {
    std::lock_guard<std::mutex> const lock(mutex_);
    auto out = spans_;
    std::stable_sort(out.begin(), out.end(),
                     [](const timeline_span& a, const timeline_span& b) { return a.begin_seconds < b.begin_seconds; });
    return out;
  }

 private:
  clock::time_point origin_;
  mutable std::mutex mutex_;
  std::vector<timeline_span> spans_;
  std::shared_ptr<const void> reference_;
};

}  // namespace mcprice::detail
