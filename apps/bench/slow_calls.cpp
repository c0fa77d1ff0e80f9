// libmcprice-slow-calls.so: names every CUDA runtime or driver call that takes longer than a
// threshold, in any program, without changing it. The CUDA driver loads it through
// CUDA_INJECTION64_PATH and calls InitializeInjection, which subscribes to CUPTI's runtime- and
// driver-API callbacks (a runtime call that waits shows with the driver call inside it); each
// call's exit is timed against its entry. It finds which call on which thread holds the others
// (a free that waits for a running kernel, a launch that waits for room in a full queue), which a
// span around a whole phase cannot. Usage:
//   CUDA_INJECTION64_PATH=/path/libmcprice-slow-calls.so MCPRICE_SLOW_CALL_MS=20 program ...
// Lines go to stderr: "slow call: NAME [KERNEL] thread T at S s for D ms", S counted from the
// library's load (about the program's first CUDA call). With MCPRICE_SLOW_KERNEL_MS set, kernels
// that ran longer than it on the device are named too, from CUPTI's activity records (concurrent
// kernels, so nothing is serialised): "slow kernel: NAME stream N from S s for D ms".
#include <cupti.h>

#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

namespace {

using clock_type = std::chrono::steady_clock;

clock_type::time_point const origin = clock_type::now();
std::int64_t threshold_ns = 50'000'000;

std::int64_t now_ns()
{
  return std::chrono::duration_cast<std::chrono::nanoseconds>(clock_type::now() - origin).count();
}

// The environment's milliseconds as nanoseconds; `otherwise` where the variable is not set.
std::int64_t ns_from_env(const char* name, std::int64_t otherwise)
{
  const char* ms = std::getenv(name);
  return ms != nullptr ? static_cast<std::int64_t>(std::atof(ms) * 1e6) : otherwise;
}

// CUpti_CallbackFunc exactly: the API domains' data is a CUpti_CallbackData.
void CUPTIAPI on_call(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void* data)
{
  auto const* call = static_cast<const CUpti_CallbackData*>(data);
  if (call->callbackSite == CUPTI_API_ENTER) {
    *call->correlationData = static_cast<std::uint64_t>(now_ns());
    return;
  }
  auto const start = static_cast<std::int64_t>(*call->correlationData);
  std::int64_t const took = now_ns() - start;
  // Waiting is what synchronising calls are for; a wait inside any other call is the finding.
  if (took < threshold_ns || std::strstr(call->functionName, "Synchronize") != nullptr) return;
  std::fprintf(stderr, "slow call: %s%s%s thread %ld at %.3f s for %.1f ms\n", call->functionName,
               call->symbolName != nullptr ? " " : "", call->symbolName != nullptr ? call->symbolName : "",
               static_cast<long>(syscall(SYS_gettid)), 1e-9 * static_cast<double>(start),
               1e-6 * static_cast<double>(took));
}

// Kernel durations: CUPTI hands over filled buffers of activity records from its own thread.
std::int64_t kernel_threshold_ns = 0;
std::uint64_t device_origin_ns = 0;
constexpr std::size_t activity_buffer_bytes = std::size_t{1} << 20;

void CUPTIAPI give_buffer(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records)
{
  *buffer = static_cast<std::uint8_t*>(::operator new (activity_buffer_bytes, std::align_val_t{8}, std::nothrow));
  *size = *buffer != nullptr ? activity_buffer_bytes : 0;
  *max_records = 0;  // as many as fit
}

void CUPTIAPI take_buffer(CUcontext, std::uint32_t, std::uint8_t* buffer, std::size_t, std::size_t valid)
{
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    if (record->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) continue;
    auto const* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
    auto const took = static_cast<std::int64_t>(k->end - k->start);
    if (k->start == 0 || took < kernel_threshold_ns) continue;
    std::fprintf(stderr, "slow kernel: %s stream %u from %.3f s for %.1f ms\n", k->name != nullptr ? k->name : "?",
                 k->streamId, 1e-9 * static_cast<double>(k->start - device_origin_ns),
                 1e-6 * static_cast<double>(took));
  }
  ::operator delete (buffer, std::align_val_t{8});
}

// Records still in CUPTI's buffers at exit are handed over before the process ends.
void flush_activity() { (void)cuptiActivityFlushAll(1); }

bool name_slow_kernels()
{
  kernel_threshold_ns = ns_from_env("MCPRICE_SLOW_KERNEL_MS", -1);
  if (kernel_threshold_ns < 0) return true;
  if (cuptiGetTimestamp(&device_origin_ns) != CUPTI_SUCCESS ||
      cuptiActivityRegisterCallbacks(give_buffer, take_buffer) != CUPTI_SUCCESS ||
      cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) != CUPTI_SUCCESS) {
    return false;
  }
  std::atexit(flush_activity);
  std::fprintf(stderr, "slow call: naming kernels that ran over %.1f ms\n",
               1e-6 * static_cast<double>(kernel_threshold_ns));
  return true;
}

}  // namespace

extern "C" int InitializeInjection()
{
  threshold_ns = ns_from_env("MCPRICE_SLOW_CALL_MS", threshold_ns);
  CUpti_SubscriberHandle subscriber{};
  if (cuptiSubscribe(&subscriber, on_call, nullptr) != CUPTI_SUCCESS ||
      cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API) != CUPTI_SUCCESS ||
      cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API) != CUPTI_SUCCESS) {
    std::fprintf(stderr, "slow call: CUPTI refused the subscription; nothing is timed\n");
    return 0;
  }
  std::fprintf(stderr, "slow call: naming runtime and driver calls over %.1f ms\n",
               1e-6 * static_cast<double>(threshold_ns));
  if (!name_slow_kernels())
    std::fprintf(stderr, "slow call: CUPTI refused the kernel activity; kernels are not named\n");
  return 1;
}
