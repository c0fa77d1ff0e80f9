// Which driver calls hold up a stop (issue 37: Ctrl-C with Greeks on the GPU). A kernel fills
// the GPU and spins until a word in device memory is set (or SPIN seconds pass); 0.3 s in,
// another thread makes one driver call (allocation, free, mapping, stream or graph creation, as
// the engine makes while a book is priced); 0.6 s in, the main thread sets the word with a copy
// on a stream of its own, as job_runner::send_stop does. Per call it prints how long the call
// took and when the kernel ended after the stop was sent: a call that waits for the running
// kernel takes until the stop (0.3 s); a call that also holds the stop's copy back leaves the
// kernel running to its timeout. A benchmark app, not a test.
//   mcprice-sync-probe [SPIN = 3] [lmem-max | stack]
#include "mcprice/memory/cuda_error.hpp"
#include "mcprice/memory/page_driver.hpp"

#include <cuda_runtime_api.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace {

using clock_type = std::chrono::steady_clock;

__global__ void spin_until_stopped(const volatile unsigned int* stop, unsigned long long max_ns)
{
  unsigned long long start = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  for (;;) {
    if (*stop != 0U) return;
    unsigned long long now = 0;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    if (now - start > max_ns) return;
    __nanosleep(1000);
  }
}

// A kernel with a large local array (16 KiB a thread, indexed at run time): its launch may have
// to grow the context's local memory, which the driver does only with the device idle.
__global__ void local_heavy(int n, float* out)
{
  float a[4096];
  for (int i = 0; i < 4096; ++i) a[i] = static_cast<float>(i * n);
  if (out != nullptr) out[threadIdx.x] = a[(threadIdx.x * 7 + n) % 4096];
}

// A kernel that asks nothing of its grid: launched cooperatively, all its blocks must be resident
// at once, which a GPU full of other blocks cannot grant until they end.
__global__ void cooperative_noop(int* out)
{
  if (out != nullptr && threadIdx.x == 0) out[blockIdx.x] = 1;
}

// cooperative_noop launched cooperatively, a block an SM.
void launch_cooperative_noop(cudaStream_t s)
{
  int sms = 0;
  MCPRICE_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  int* out = nullptr;
  void* args[] = {&out};
  MCPRICE_CUDA_TRY(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(cooperative_noop),
                                               dim3(static_cast<unsigned>(sms)), dim3(256), args, 0, s));
}

// The stream the spinning kernel runs on, for calls queued behind it.
cudaStream_t busy_stream = nullptr;

double seconds(clock_type::time_point from) { return std::chrono::duration<double>(clock_type::now() - from).count(); }

struct probe {
  std::string name;
  std::function<void()> prepare;  // before the kernel (not timed)
  std::function<void()> call;     // 0.3 s into the kernel (timed)
  std::function<void()> cleanup;  // after the kernel
};

void run_probe(const probe& p, double spin_s)
{
  cudaStream_t work = nullptr;
  cudaStream_t stopper = nullptr;
  MCPRICE_CUDA_TRY(cudaStreamCreateWithFlags(&work, cudaStreamNonBlocking));
  MCPRICE_CUDA_TRY(cudaStreamCreateWithFlags(&stopper, cudaStreamNonBlocking));
  unsigned int* d_stop = nullptr;
  unsigned int* h_stop = nullptr;
  MCPRICE_CUDA_TRY(cudaMalloc(&d_stop, sizeof(unsigned int)));
  MCPRICE_CUDA_TRY(cudaMallocHost(&h_stop, sizeof(unsigned int)));
  MCPRICE_CUDA_TRY(cudaMemset(d_stop, 0, sizeof(unsigned int)));
  *h_stop = 1U;
  cudaEvent_t ended = nullptr;
  MCPRICE_CUDA_TRY(cudaEventCreateWithFlags(&ended, cudaEventDisableTiming));
  if (p.prepare) p.prepare();
  MCPRICE_CUDA_TRY(cudaDeviceSynchronize());

  int sms = 0;
  MCPRICE_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  auto const start = clock_type::now();
  spin_until_stopped<<<sms * 8, 256, 0, work>>>(d_stop, static_cast<unsigned long long>(spin_s * 1e9));
  MCPRICE_CUDA_TRY(cudaGetLastError());
  MCPRICE_CUDA_TRY(cudaEventRecord(ended, work));
  busy_stream = work;

  double call_from = 0.0;
  double call_to = 0.0;
  std::thread caller([&] {
    std::this_thread::sleep_until(start + std::chrono::milliseconds(300));
    call_from = seconds(start);
    if (p.call) p.call();
    call_to = seconds(start);
  });
  std::this_thread::sleep_until(start + std::chrono::milliseconds(600));
  double const stop_at = seconds(start);
  MCPRICE_CUDA_TRY(cudaMemcpyAsync(d_stop, h_stop, sizeof(unsigned int), cudaMemcpyHostToDevice, stopper));
  double const stop_queued = seconds(start);
  while (cudaEventQuery(ended) == cudaErrorNotReady) {}
  double const kernel_end = seconds(start);
  caller.join();
  MCPRICE_CUDA_TRY(cudaDeviceSynchronize());
  if (p.cleanup) p.cleanup();
  std::printf("%-34s call %8.3f ms (%.3f-%.3f s)  stop queued in %7.3f ms  kernel ended %8.3f ms after the stop\n",
              p.name.c_str(), 1e3 * (call_to - call_from), call_from, call_to, 1e3 * (stop_queued - stop_at),
              1e3 * (kernel_end - stop_at));
  MCPRICE_CUDA_TRY_NOTHROW(cudaEventDestroy(ended));
  MCPRICE_CUDA_TRY_NOTHROW(cudaFreeHost(h_stop));
  MCPRICE_CUDA_TRY_NOTHROW(cudaFree(d_stop));
  MCPRICE_CUDA_TRY_NOTHROW(cudaStreamDestroy(stopper));
  MCPRICE_CUDA_TRY_NOTHROW(cudaStreamDestroy(work));
}

}  // namespace

int main(int argc, char** argv)
{
  double const spin_s = argc > 1 ? std::atof(argv[1]) : 3.0;
  // "lmem-max": the context keeps its local memory at the largest a launch asked for.
  bool const keep_local = argc > 2 && std::string(argv[2]) == "lmem-max";
  if (keep_local) MCPRICE_CUDA_TRY(cudaSetDeviceFlags(cudaDeviceLmemResizeToMax));
  // "stack": the per-thread stack limit raised up front past the local kernel's 16 KiB.
  bool const big_stack = argc > 2 && std::string(argv[2]) == "stack";
  constexpr std::size_t mib64 = std::size_t{64} << 20;
  void* p = nullptr;
  void* h = nullptr;
  cudaStream_t s = nullptr;
  cudaStream_t s2 = nullptr;
  cudaMemPool_t pool = nullptr;
  std::unique_ptr<mcprice::page_driver> pages;
  mcprice::device_address base = 0;
  mcprice::page_handle page{};
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  std::vector<char> host(mib64);
  // One physical page mapped at `base` and made accessible, and back.
  auto map_page = [&] {
    page = pages->create_page();
    pages->map(base, page);
    pages->allow_access(base, pages->page_size());
  };
  auto unmap_page = [&] {
    pages->unmap(base);
    pages->release_page(page);
  };
  // An explicit device pool and a stream to allocate from it on.
  auto new_pool_and_stream = [&] {
    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = 0;
    MCPRICE_CUDA_TRY(cudaMemPoolCreate(&pool, &props));
    MCPRICE_CUDA_TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  };

  std::vector<probe> probes = {
      {"nothing", {}, {}, {}},
      {"cudaMalloc 64 MiB", {}, [&] { MCPRICE_CUDA_TRY(cudaMalloc(&p, mib64)); }, [&] { cudaFree(p); }},
      {"cudaFree 64 MiB", [&] { MCPRICE_CUDA_TRY(cudaMalloc(&p, mib64)); }, [&] { MCPRICE_CUDA_TRY(cudaFree(p)); }, {}},
      {"cudaMallocHost 64 MiB", {}, [&] { MCPRICE_CUDA_TRY(cudaMallocHost(&h, mib64)); }, [&] { cudaFreeHost(h); }},
      {"cudaFreeHost 64 MiB",
       [&] { MCPRICE_CUDA_TRY(cudaMallocHost(&h, mib64)); },
       [&] { MCPRICE_CUDA_TRY(cudaFreeHost(h)); },
       {}},
      {"cudaHostRegister 64 MiB",
       {},
       [&] { MCPRICE_CUDA_TRY(cudaHostRegister(host.data(), mib64, cudaHostRegisterDefault)); },
       [&] { cudaHostUnregister(host.data()); }},
      {"cudaStreamCreate",
       {},
       [&] { MCPRICE_CUDA_TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)); },
       [&] { cudaStreamDestroy(s); }},
      {"cudaStreamDestroy (idle)",
       [&] { MCPRICE_CUDA_TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)); },
       [&] { MCPRICE_CUDA_TRY(cudaStreamDestroy(s)); },
       {}},
      {"cudaMallocAsync 64 MiB (new pool)", [&] { new_pool_and_stream(); },
       [&] { MCPRICE_CUDA_TRY(cudaMallocFromPoolAsync(&p, mib64, pool, s)); },
       [&] {
         cudaFreeAsync(p, s);
         cudaStreamSynchronize(s);
         cudaMemPoolDestroy(pool);
         cudaStreamDestroy(s);
       }},
      {"cudaMemPoolTrimTo 0 (64 MiB free)",
       [&] {
         new_pool_and_stream();
         MCPRICE_CUDA_TRY(cudaMallocFromPoolAsync(&p, mib64, pool, s));
         MCPRICE_CUDA_TRY(cudaFreeAsync(p, s));
         MCPRICE_CUDA_TRY(cudaStreamSynchronize(s));
       },
       [&] { MCPRICE_CUDA_TRY(cudaMemPoolTrimTo(pool, 0)); },
       [&] {
         cudaMemPoolDestroy(pool);
         cudaStreamDestroy(s);
       }},
      {"cuMemCreate + cuMemMap + access",
       [&] {
         pages = mcprice::make_cuda_page_driver(0);
         base = pages->reserve(pages->page_size());
       },
       [&] { map_page(); },
       [&] {
         unmap_page();
         pages->unreserve(base, pages->page_size());
       }},
      {"cuMemUnmap + cuMemRelease",
       [&] {
         pages = mcprice::make_cuda_page_driver(0);
         base = pages->reserve(pages->page_size());
         map_page();
       },
       [&] { unmap_page(); }, [&] { pages->unreserve(base, pages->page_size()); }},
      {"cudaMemcpyAsync 1 MiB from pageable",
       [&] {
         MCPRICE_CUDA_TRY(cudaMalloc(&p, std::size_t{1} << 20));
         MCPRICE_CUDA_TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
       },
       [&] {
         MCPRICE_CUDA_TRY(cudaMemcpyAsync(p, host.data(), std::size_t{1} << 20, cudaMemcpyHostToDevice, s));
         MCPRICE_CUDA_TRY(cudaStreamSynchronize(s));
       },
       [&] {
         cudaStreamDestroy(s);
         cudaFree(p);
       }},
      {"cudaMemcpyAsync 1 MiB pageable, busy stream", [&] { MCPRICE_CUDA_TRY(cudaMalloc(&p, std::size_t{1} << 20)); },
       [&] {
         MCPRICE_CUDA_TRY(cudaMemcpyAsync(p, host.data(), std::size_t{1} << 20, cudaMemcpyHostToDevice, busy_stream));
       },
       [&] { cudaFree(p); }},
      {"launch, 16 KiB local a thread", [&] { MCPRICE_CUDA_TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)); },
       [&] {
         local_heavy<<<132 * 4, 256, 0, s>>>(3, nullptr);
         MCPRICE_CUDA_TRY(cudaGetLastError());
       },
       [&] { cudaStreamDestroy(s); }},
      {"launch, 16 KiB local a thread, again",
       [&] { MCPRICE_CUDA_TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)); },
       [&] {
         local_heavy<<<132 * 4, 256, 0, s>>>(5, nullptr);
         MCPRICE_CUDA_TRY(cudaGetLastError());
       },
       [&] { cudaStreamDestroy(s); }},
      {"cooperative launch, a block an SM",
       [&] { MCPRICE_CUDA_TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)); },
       [&] {
         launch_cooperative_noop(s);
       },
       [&] { cudaStreamDestroy(s); }},
      {"cooperative launch, then a plain launch on another stream",
       [&] {
         MCPRICE_CUDA_TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
         MCPRICE_CUDA_TRY(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
       },
       [&] {
         launch_cooperative_noop(s);
         cooperative_noop<<<1, 32, 0, s2>>>(nullptr);
         MCPRICE_CUDA_TRY(cudaGetLastError());
       },
       [&] {
         cudaStreamDestroy(s2);
         cudaStreamDestroy(s);
       }},
      {"cudaGraphInstantiate (a memset)",
       [&] {
         MCPRICE_CUDA_TRY(cudaMalloc(&p, 4096));
         MCPRICE_CUDA_TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
         MCPRICE_CUDA_TRY(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
         MCPRICE_CUDA_TRY(cudaMemsetAsync(p, 0, 4096, s));
         MCPRICE_CUDA_TRY(cudaStreamEndCapture(s, &graph));
       },
       [&] { MCPRICE_CUDA_TRY(cudaGraphInstantiate(&exec, graph, 0)); },
       [&] {
         cudaGraphExecDestroy(exec);
         cudaGraphDestroy(graph);
         cudaStreamDestroy(s);
         cudaFree(p);
       }},
  };
  MCPRICE_CUDA_TRY(cudaSetDevice(0));
  MCPRICE_CUDA_TRY(cudaFree(nullptr));
  if (big_stack) MCPRICE_CUDA_TRY(cudaDeviceSetLimit(cudaLimitStackSize, 20 * 1024));
  std::printf("driver calls 0.3 s into a kernel that fills the GPU; its stop sent 0.6 s in (spin limit %.1f s)%s\n",
              spin_s,
              keep_local  ? ", local memory kept at its largest"
              : big_stack ? ", stack limit 20 KiB"
                          : "");
  for (auto const& pr : probes) run_probe(pr, spin_s);
  return 0;
}
