#pragma once
// A GPU calibration's stop word. Its kernels read it once a unit of work and take no more once it
// is set (kernels::calibration_ref::stop); what they leave is never read, since the family is
// then cancelled. The host sets it through the context's stop stream once the caller has
// cancelled, and only after the zero queued ahead of the kernels has landed, so the zero never
// lands on top of the stop. Without it a calibration queued before a stop ran to its end, and
// the pool streams it shares with jobs waited for it (docs/reliability.md, Signals).
#include "backends/gpu/gpu_context.hpp"

#include <atomic>

namespace mcprice::detail {

class calibration_stop {
 public:
  // device_word, host_word: a word of the calibration's device buffer and of its pinned staging.
  // cancel: the caller's flag (null: the calibration cannot be cancelled). Zeroes the device
  // word on s, ahead of the calibration's kernels.
  calibration_stop(gpu_context& ctx, const std::atomic<bool>* cancel, unsigned int* device_word,
                   unsigned int* host_word, stream_view s);
  ~calibration_stop();  // a sent stop's copy lands before the words go back
  calibration_stop(const calibration_stop&) = delete;
  calibration_stop& operator=(const calibration_stop&) = delete;

  [[nodiscard]] const unsigned int* word() const noexcept { return device_; }
  // Sends the stop once the caller has cancelled and the zero has landed; true once it is sent.
  bool try_send();
  // Waits for `mark` on the host. Where the caller may cancel it polls instead, sending the stop
  // once due, and returns once it is sent: the kernels ahead of the mark then end early.
  void wait(order_token mark);
  // Sends the stop where it is due, however long the zero takes to land: called before the
  // calibration waits for its stream on the way out.
  void settle() noexcept;

 private:
  [[nodiscard]] bool cancelled() const noexcept;

  gpu_context& ctx_;
  const std::atomic<bool>* cancel_;
  unsigned int* device_;
  unsigned int* host_;
  order_token zeroed_;
  bool sent_{false};
};

}  // namespace mcprice::detail
