#include "backends/gpu/calibration_stop.hpp"

#include "mcprice/memory/cuda_error.hpp"

#include <chrono>
#include <thread>

namespace mcprice::detail {
namespace {
// How often a cancellable wait looks at its mark and the caller's flag.
constexpr std::chrono::microseconds poll_period{100};
}  // namespace

calibration_stop::calibration_stop(stream_ordering& events, const std::atomic<bool>* cancel, unsigned int* device_word,
                                   unsigned int* host_word, stream_view s)
    : events_(events), cancel_(cancel), device_(device_word), host_(host_word), zeroed_(0)
{
  MCPRICE_CUDA_TRY(cudaMemsetAsync(device_, 0, sizeof(unsigned int), s.value()));
  zeroed_ = events_.record(s);
}

calibration_stop::~calibration_stop()
{
  if (stream_) MCPRICE_CUDA_TRY_NOTHROW(cudaStreamSynchronize(stream_->value()));
  events_.release(zeroed_);
}

bool calibration_stop::cancelled() const noexcept
{
  return cancel_ != nullptr && cancel_->load(std::memory_order_relaxed);
}

bool calibration_stop::try_send()
{
  if (sent_) return true;
  if (!cancelled() || !events_.passed(zeroed_)) return false;
  if (!stream_) stream_.emplace();
  *static_cast<volatile unsigned int*>(host_) = 1U;
  MCPRICE_CUDA_TRY(cudaMemcpyAsync(device_, host_, sizeof(unsigned int), cudaMemcpyHostToDevice, stream_->value()));
  sent_ = true;
  return true;
}

void calibration_stop::wait(order_token mark)
{
  if (cancel_ == nullptr) {
    events_.synchronize(mark);
    return;
  }
  while (!events_.passed(mark)) {
    if (try_send()) return;
    std::this_thread::sleep_for(poll_period);
  }
}

void calibration_stop::settle() noexcept
{
  try {
    while (cancelled() && !try_send()) std::this_thread::sleep_for(poll_period);
  } catch (...) {
    // A stop that cannot be sent leaves the calibration's kernels to run to their end.
  }
}

}  // namespace mcprice::detail
