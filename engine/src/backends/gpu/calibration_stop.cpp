#include "backends/gpu/calibration_stop.hpp"

#include "mcprice/memory/cuda_error.hpp"

#include <chrono>
#include <thread>

namespace mcprice::detail {
namespace {
// How often a cancellable wait looks at its mark and the caller's flag.
constexpr std::chrono::microseconds poll_period{100};
}  // namespace

calibration_stop::calibration_stop(gpu_context& ctx, const std::atomic<bool>* cancel, unsigned int* device_word,
                                   unsigned int* host_word, stream_view s)
    : ctx_(ctx), cancel_(cancel), device_(device_word), host_(host_word), zeroed_(0)
{
  MCPRICE_CUDA_TRY(cudaMemsetAsync(device_, 0, sizeof(unsigned int), s.value()));
  zeroed_ = ctx_.events().record(s);
}

calibration_stop::~calibration_stop()
{
  if (sent_) MCPRICE_CUDA_TRY_NOTHROW(cudaStreamSynchronize(ctx_.stop_stream().value()));
  ctx_.events().release(zeroed_);
}

bool calibration_stop::cancelled() const noexcept
{
  return cancel_ != nullptr && cancel_->load(std::memory_order_relaxed);
}

bool calibration_stop::try_send()
{
  if (sent_) return true;
  if (!cancelled() || !ctx_.events().passed(zeroed_)) return false;
  ctx_.send_stop(device_, host_);
  sent_ = true;
  return true;
}

void calibration_stop::wait(order_token mark)
{
  if (cancel_ == nullptr) {
    ctx_.events().synchronize(mark);
    return;
  }
  while (!ctx_.events().passed(mark)) {
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
