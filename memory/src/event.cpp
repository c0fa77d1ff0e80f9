#include "mcprice/memory/event.hpp"

#include "mcprice/memory/cuda_error.hpp"

#include <utility>

namespace mcprice {

event::event(timing t)
{
  unsigned const flags = t == timing::enabled ? cudaEventDefault : cudaEventDisableTiming;
  MCPRICE_CUDA_TRY(cudaEventCreateWithFlags(&event_, flags));
}

event::~event() { reset(); }

event::event(event&& other) noexcept : event_(std::exchange(other.event_, nullptr)) {}

event& event::operator=(event&& other) noexcept
{
  if (this != &other) {
    reset();
    event_ = std::exchange(other.event_, nullptr);
  }
  return *this;
}

void event::reset() noexcept
{
  if (event_ != nullptr) { MCPRICE_CUDA_TRY_NOTHROW(cudaEventDestroy(event_)); }
  event_ = nullptr;
}

void event::record(stream_view s) { MCPRICE_CUDA_TRY(cudaEventRecord(event_, s.value())); }

void event::make_wait(stream_view waiter) const
{
  MCPRICE_CUDA_TRY(cudaStreamWaitEvent(waiter.value(), event_, 0));
}

bool event::query() const
{
  cudaError_t const status = cudaEventQuery(event_);
  if (status == cudaErrorNotReady) {
    (void)cudaGetLastError();
    return false;
  }
  MCPRICE_CUDA_TRY(status);
  return true;
}

void event::synchronize() const { MCPRICE_CUDA_TRY(cudaEventSynchronize(event_)); }

float event::elapsed_ms(const event& start, const event& stop)
{
  float ms = 0.0F;
  MCPRICE_CUDA_TRY(cudaEventElapsedTime(&ms, start.event_, stop.event_));
  return ms;
}

}  // namespace mcprice
