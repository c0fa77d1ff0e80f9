// libmcprice-slow-calls.so: names every CUDA runtime or driver call that takes longer than a
// threshold, in any program, without changing it. The CUDA driver loads it through
// CUDA_INJECTION64_PATH and calls InitializeInjection, which subscribes to CUPTI's runtime- and
// driver-API callbacks (a runtime call that waits shows with the driver call inside it); each
// call's exit is timed against its entry. It finds which call on which thread holds the others
// (a free that waits for a running kernel, a launch that waits for room in a full queue), which a
// span around a whole phase cannot. Usage:
//   CUDA_INJECTION64_PATH=/path/libmcprice-slow-calls.so MCPRICE_SLOW_CALL_MS=20 program ...
// Lines go to stderr: "slow call: NAME [KERNEL] thread T at S s for D ms", S counted from the
// library's load (about the program's first CUDA call).
#include <cupti.h>

#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

using clock_type = std::chrono::steady_clock;

clock_type::time_point const origin = clock_type::now();
std::int64_t threshold_ns = 50'000'000;

std::int64_t now_ns()
{
  return std::chrono::duration_cast<std::chrono::nanoseconds>(clock_type::now() - origin).count();
}

void CUPTIAPI on_call(void*, CUpti_CallbackDomain, CUpti_CallbackId, const CUpti_CallbackData* call)
{
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

}  // namespace

extern "C" int InitializeInjection()
{
  if (const char* ms = std::getenv("MCPRICE_SLOW_CALL_MS"); ms != nullptr) {
    threshold_ns = static_cast<std::int64_t>(std::atof(ms) * 1e6);
  }
  CUpti_SubscriberHandle subscriber{};
  if (cuptiSubscribe(&subscriber, reinterpret_cast<CUpti_CallbackFunc>(on_call), nullptr) != CUPTI_SUCCESS ||
      cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API) != CUPTI_SUCCESS ||
      cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API) != CUPTI_SUCCESS) {
    std::fprintf(stderr, "slow call: CUPTI refused the subscription; nothing is timed\n");
    return 0;
  }
  std::fprintf(stderr, "slow call: naming runtime and driver calls over %.1f ms\n",
               1e-6 * static_cast<double>(threshold_ns));
  return 1;
}
