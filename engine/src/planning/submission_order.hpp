#pragma once
// The chunks of a pipelined call queue their GPU work one chunk at a time, in chunk order: the
// streams then run chunk k before chunk k+1 (so chunks finish, and their results are made, in
// order), and the threads queueing jobs do not contend for the driver. Chunk k's families queue
// side by side once every family of the chunks before it has queued all its work or given up.
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <vector>

namespace mcprice::detail {

class submission_order {
 public:
  // Chunk `chunk` has `families` families that will report (chunks may be announced in any
  // order: the first two are prepared side by side).
  void expect(std::size_t chunk, std::size_t families)
  {
    std::lock_guard<std::mutex> const lock(mutex_);
    grow(chunk);
    announced_[chunk] = true;
    left_[chunk] = families;
    advance();
  }

  // Chunk `chunk` will not queue anything after all (its preparation failed): the chunks behind
  // it go on. Reports of its families, if some were started, are then ignored.
  void abandon(std::size_t chunk) { expect(chunk, 0); }

  void wait_turn(std::size_t chunk)
  {
    std::unique_lock<std::mutex> lock(mutex_);
    turn_.wait(lock, [&] { return next_ >= chunk; });
  }

  void submitted(std::size_t chunk)
  {
    std::lock_guard<std::mutex> const lock(mutex_);
    if (chunk < left_.size() && left_[chunk] > 0) --left_[chunk];
    advance();
  }

 private:
  void grow(std::size_t chunk)
  {
    if (left_.size() > chunk) return;
    left_.resize(chunk + 1, 0);
    announced_.resize(chunk + 1, false);
  }

  // Moves past every announced chunk whose families have all reported.
  void advance()
  {
    std::size_t const before = next_;
    while (next_ < left_.size() && announced_[next_] && left_[next_] == 0) ++next_;
    if (next_ != before) turn_.notify_all();
  }

  std::mutex mutex_;
  std::condition_variable turn_;
  std::vector<std::size_t> left_;  // per chunk: families yet to report
  std::vector<bool> announced_;    // per chunk: expect() called
  std::size_t next_{0};            // the first chunk not wholly submitted
};

}  // namespace mcprice::detail
