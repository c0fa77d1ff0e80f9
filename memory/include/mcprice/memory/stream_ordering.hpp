#pragma once
// How a pool orders the reuse of a freed block by another stream: it records a marker on the
// freeing stream and makes the reusing stream wait on it, with no host synchronisation. The
// CUDA implementation uses events (recycled, never created in the hot path); host tests
// substitute a recorder to check the bookkeeping without a GPU.
#include "mcprice/memory/stream.hpp"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <mutex>
#include <optional>
#include <vector>

namespace mcprice {

using order_token = std::uintptr_t;

class stream_ordering {
 public:
  virtual ~stream_ordering() = default;
  virtual order_token record(stream_view s) = 0;             // marks "everything queued on s so far"
  virtual void wait(stream_view waiter, order_token t) = 0;  // waiter's later work runs after the mark
  virtual void release(order_token t) noexcept = 0;          // the mark is no longer needed
  virtual void synchronize(order_token t) = 0;               // the host waits for the mark
  // Whether the device has already passed the mark (a poll, never a wait): a block freed
  // behind a passed mark can go to any stream with no wait at all.
  virtual bool passed(order_token t) = 0;
};

// A mark for a free, from a noexcept path: none when it cannot be recorded (a CUDA failure: the
// device is in error, nothing it queued will run, and the caller releases the memory at once).
[[nodiscard]] inline std::optional<order_token> try_record(stream_ordering& ordering, stream_view s) noexcept
{
  try {
    return ordering.record(s);
  } catch (...) {
    return std::nullopt;
  }
}

class cuda_event_ordering final : public stream_ordering {
 public:
  cuda_event_ordering() = default;
  ~cuda_event_ordering() override;
  cuda_event_ordering(const cuda_event_ordering&) = delete;
  cuda_event_ordering& operator=(const cuda_event_ordering&) = delete;

  order_token record(stream_view s) override;
  void wait(stream_view waiter, order_token t) override;
  void release(order_token t) noexcept override;
  void synchronize(order_token t) override;
  bool passed(order_token t) override;

 private:
  std::mutex mutex_;
  std::vector<cudaEvent_t> spare_;
};

}  // namespace mcprice
