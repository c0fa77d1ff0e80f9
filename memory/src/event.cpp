#include "mcprice/memory/event.hpp"

#include "mcprice/memory/cuda_error.hpp"

namespace mcprice {

namespace detail {
void destroy_event(cudaEvent_t e) noexcept { MCPRICE_CUDA_TRY_NOTHROW(cudaEventDestroy(e)); }
}  // namespace detail

event::event(timing t)
{
  unsigned const flags = t == timing::enabled ? cudaEventDefault : cudaEventDisableTiming;
  cudaEvent_t e = nullptr;
  MCPRICE_CUDA_TRY(cudaEventCreateWithFlags(&e, flags));
  event_ = decltype(event_)(e);
}

void event::record(stream_view s) { MCPRICE_CUDA_TRY(cudaEventRecord(event_.get(), s.value())); }

void event::make_wait(stream_view waiter) const
{
  MCPRICE_CUDA_TRY(cudaStreamWaitEvent(waiter.value(), event_.get(), 0));
}

bool event::query() const
{
  cudaError_t const status = cudaEventQuery(event_.get());
  if (status == cudaErrorNotReady) {
    (void)cudaGetLastError();
    return false;
  }
  MCPRICE_CUDA_TRY(status);
  return true;
}

void event::synchronize() const { MCPRICE_CUDA_TRY(cudaEventSynchronize(event_.get())); }

float event::elapsed_ms(const event& start, const event& stop)
{
  float ms = 0.0F;
  MCPRICE_CUDA_TRY(cudaEventElapsedTime(&ms, start.event_.get(), stop.event_.get()));
  return ms;
}

}  // namespace mcprice
