#pragma once
// Host-side per-trade work (checks, kernel records, results) spread over a few threads when a
// book is large enough to pay for them. Each index is visited exactly once; f must only touch
// its own index's outputs.
#include "runtime/thread_cache.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <future>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace mcprice::detail {

// How many pieces n items make: one per min_per_thread items (the least work worth a thread of
// its own; thread start-up is some 10 us), at most 8 and at most the cores.
inline std::size_t pieces_for(std::size_t n, std::size_t min_per_thread)
{
  // Asked once: glibc reads /sys/devices/system/cpu/online at every call (three file operations,
  // a small request's host work made several).
  static std::size_t const hw = std::max(1U, std::thread::hardware_concurrency());
  return std::min<std::size_t>({hw, 8, (n + min_per_thread - 1) / min_per_thread});
}

template <typename F>
void parallel_for(std::size_t n, F&& f, std::size_t min_per_thread = 2048)
{
  std::size_t const threads = pieces_for(n, min_per_thread);
  if (threads <= 1) {
    for (std::size_t i = 0; i < n; ++i) f(i);
    return;
  }
  std::size_t const chunk = (n + threads - 1) / threads;
  std::vector<std::future<void>> workers;
  for (std::size_t t = 1; t < threads; ++t) {
    workers.push_back(std::async(std::launch::async, [&, t] {
      for (std::size_t i = t * chunk; i < std::min(n, (t + 1) * chunk); ++i) f(i);
    }));
  }
  for (std::size_t i = 0; i < std::min(n, chunk); ++i) f(i);
  for (auto& w : workers) w.get();
}

// f(i) for i in [0, n) as `pieces` pieces of `per` consecutive indices, on this thread and
// `helpers` of the engine's kept threads. Pieces are claimed, not assigned: the caller works
// through them too and never waits for a helper that has not started (a sleeping thread can
// take 100 us to wake); a helper that starts after the last claim touches nothing of the
// caller's and finds nothing to do. The first exception is rethrown once every piece is done.
template <typename F>
void run_claimed_pieces(thread_cache& threads, std::size_t pieces, std::size_t per, std::size_t n, F& f,
                        std::size_t helpers)
{
  struct shared {
    std::atomic<std::size_t> next{0};
    std::size_t done{0};
    std::exception_ptr failure;
    std::mutex mutex;
    std::condition_variable finished;
  };
  auto state = std::make_shared<shared>();
  auto* const body = &f;
  // Only a successful claim reaches body, and every claim happens before the caller returns.
  auto work = [state, body, n, per, pieces] {
    for (std::size_t p = state->next.fetch_add(1); p < pieces; p = state->next.fetch_add(1)) {
      std::exception_ptr failure;
      try {
        for (std::size_t i = p * per; i < std::min(n, (p + 1) * per); ++i) (*body)(i);
      } catch (...) {
        failure = std::current_exception();
      }
      std::lock_guard<std::mutex> const lock(state->mutex);
      if (failure && !state->failure) state->failure = failure;
      if (++state->done == pieces) state->finished.notify_all();
    }
  };
  try {
    for (std::size_t t = 0; t < std::min(helpers, pieces - 1); ++t) (void)threads.run(work);
  } catch (...) {
    // A helper that cannot start only leaves more pieces to claim here; unwinding now would
    // leave the started helpers calling f from a frame that is gone.
  }
  work();
  std::unique_lock<std::mutex> lock(state->mutex);
  state->finished.wait(lock, [&] { return state->done == pieces; });
  if (state->failure) std::rethrow_exception(state->failure);
}

// The same on an engine's kept threads, in at most pieces_for(n, min_per_thread) pieces.
template <typename F>
void parallel_for(thread_cache& threads, std::size_t n, F&& f, std::size_t min_per_thread = 2048)
{
  std::size_t const pieces = pieces_for(n, min_per_thread);
  if (pieces <= 1) {
    for (std::size_t i = 0; i < n; ++i) f(i);
    return;
  }
  run_claimed_pieces(threads, pieces, (n + pieces - 1) / pieces, n, f, pieces - 1);
}

// f(i) for each i in [0, n), each index a piece of its own (n long tasks that should run side
// by side, such as a chunk's families on the GPU): whatever this thread gets to before a helper
// wakes, it runs itself.
template <typename F>
void claim_each(thread_cache& threads, std::size_t n, F&& f)
{
  if (n <= 1) {
    if (n == 1) f(0);
    return;
  }
  run_claimed_pieces(threads, n, 1, n, f, n - 1);
}

// The same with at most `helpers` kept threads beside this one: for more pieces than threads
// worth using (a request's segments on the CPU backend).
template <typename F>
void claim_each(thread_cache& threads, std::size_t n, std::size_t helpers, F&& f)
{
  if (n == 0) return;
  run_claimed_pieces(threads, n, 1, n, f, helpers);
}

}  // namespace mcprice::detail
