#include "mcprice/memory/stream_ordering.hpp"

#include "mcprice/memory/cuda_error.hpp"

namespace mcprice {

cuda_event_ordering::~cuda_event_ordering()
{
  for (cudaEvent_t e : spare_) MCPRICE_CUDA_TRY_NOTHROW(cudaEventDestroy(e));
}

order_token cuda_event_ordering::record(stream_view s)
{
  cudaEvent_t e = nullptr;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!spare_.empty()) {
      e = spare_.back();
      spare_.pop_back();
    }
  }
  if (e == nullptr) MCPRICE_CUDA_TRY(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  MCPRICE_CUDA_TRY(cudaEventRecord(e, s.value()));
  return reinterpret_cast<order_token>(e);
}

void cuda_event_ordering::wait(stream_view waiter, order_token t)
{
  MCPRICE_CUDA_TRY(cudaStreamWaitEvent(waiter.value(), reinterpret_cast<cudaEvent_t>(t), 0));
}

void cuda_event_ordering::synchronize(order_token t)
{
  MCPRICE_CUDA_TRY(cudaEventSynchronize(reinterpret_cast<cudaEvent_t>(t)));
}

bool cuda_event_ordering::passed(order_token t)
{
  cudaError_t const status = cudaEventQuery(reinterpret_cast<cudaEvent_t>(t));
  if (status == cudaErrorNotReady) return false;
  MCPRICE_CUDA_TRY(status);
  return true;
}

void cuda_event_ordering::release(order_token t) noexcept
{
  // Re-recording a released event later is safe: waits already enqueued keep the old capture.
  std::lock_guard<std::mutex> lock(mutex_);
  spare_.push_back(reinterpret_cast<cudaEvent_t>(t));
}

}  // namespace mcprice
