// libmcprice-gpu-busy.so: how busy the GPU really was, window by window, in any program, without
// changing it. The load test's "GPU busy" is the share of time some stream had work queued, which
// says the host kept the device fed, not that the device was full: eight streams each holding a
// two-block kernel are "busy" with most SMs idle. This library reads CUPTI's activity records of
// every kernel, copy and memset (concurrent kernels, so nothing is serialised) and, at exit,
// prints per window:
//   any:     the share of time at least one kernel, copy or memset ran;
//   kernels: the share with at least one kernel running;
//   SMs:     the time integral of min(1, sum over running kernels of min(1, grid blocks / SMs)),
//            over the window: the share of the SMs that the running grids could occupy (a grid
//            of at least one block an SM counts as the whole GPU; a two-block kernel as 2/132).
// Usage: CUDA_INJECTION64_PATH=/path/libmcprice-gpu-busy.so MCPRICE_GPU_BUSY_MS=500 program ...
// Lines go to stderr, "gpu busy: FROM-TO s: any A%, kernels K%, SMs S% (N kernels, C copies)",
// times counted from the library's load, then one line for the whole span of activity.
// Recording costs each launch a little host time, so rates measured under it are lower.
#include <cupti.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <new>
#include <vector>

namespace {

struct span {
  std::uint64_t start;
  std::uint64_t end;
  std::uint32_t grid;  // a kernel's blocks; 0 for a copy or memset
};

std::mutex spans_mutex;
std::vector<span> spans;
std::uint32_t sms = 0;
std::uint64_t origin_ns = 0;
double window_ns = 1e9;
constexpr std::size_t buffer_bytes = std::size_t{8} << 20;

void CUPTIAPI give_buffer(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records)
{
  *buffer = static_cast<std::uint8_t*>(::operator new (buffer_bytes, std::align_val_t{8}, std::nothrow));
  *size = *buffer != nullptr ? buffer_bytes : 0;
  *max_records = 0;
}

void keep(const CUpti_Activity* record)
{
  if (record->kind == CUPTI_ACTIVITY_KIND_DEVICE) {
    sms = reinterpret_cast<const CUpti_ActivityDevice5*>(record)->numMultiprocessors;
  } else if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
    auto const* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
    if (k->start == 0 || k->end <= k->start) return;
    spans.push_back({k->start, k->end,
                     static_cast<std::uint32_t>(k->gridX) * static_cast<std::uint32_t>(k->gridY) *
                         static_cast<std::uint32_t>(k->gridZ)});
  } else if (record->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
    auto const* c = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
    if (c->start != 0 && c->end > c->start) spans.push_back({c->start, c->end, 0});
  } else if (record->kind == CUPTI_ACTIVITY_KIND_MEMSET) {
    auto const* m = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
    if (m->start != 0 && m->end > m->start) spans.push_back({m->start, m->end, 0});
  }
}

void CUPTIAPI take_buffer(CUcontext, std::uint32_t, std::uint8_t* buffer, std::size_t, std::size_t valid)
{
  {
    std::lock_guard<std::mutex> const lock(spans_mutex);
    CUpti_Activity* record = nullptr;
    while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) keep(record);
  }
  ::operator delete (buffer, std::align_val_t{8});
}

struct tally {
  double any = 0.0;
  double kernels = 0.0;
  double filled = 0.0;
  std::size_t kernel_count = 0;
  std::size_t copy_count = 0;
};

// A step change of the running set at time t: one more or one fewer span of the given fill.
struct edge {
  std::uint64_t t;
  int sign;
  double fill;
};

// The window holding time t (t >= origin_ns).
std::size_t window_of(std::uint64_t t)
{
  return static_cast<std::size_t>(static_cast<double>(t - origin_ns) / window_ns);
}

// Adds [from, to) of a constant state to the windows it crosses.
void spread(std::vector<tally>& w, std::uint64_t from, std::uint64_t to, int running, int kernels, double fill)
{
  while (from < to) {
    std::size_t const index = window_of(from);
    auto const window_end = origin_ns + static_cast<std::uint64_t>(window_ns * static_cast<double>(index + 1));
    std::uint64_t const upto = std::min(to, std::max(window_end, from + 1));
    double const dt = static_cast<double>(upto - from);
    if (index >= w.size()) w.resize(index + 1);
    if (running > 0) w[index].any += dt;
    if (kernels > 0) w[index].kernels += dt;
    w[index].filled += dt * std::min(1.0, fill);
    from = upto;
  }
}

void print_line(const char* what, double from_s, double to_s, const tally& t, double length_ns)
{
  std::fprintf(stderr, "gpu busy: %s%.3f-%.3f s: any %.1f%%, kernels %.1f%%, SMs %.1f%% (%zu kernels, %zu copies)\n",
               what, from_s, to_s, 100.0 * t.any / length_ns, 100.0 * t.kernels / length_ns,
               100.0 * t.filled / length_ns, t.kernel_count, t.copy_count);
}

void report()
{
  (void)cuptiActivityFlushAll(1);
  std::lock_guard<std::mutex> const lock(spans_mutex);
  if (spans.empty()) {
    std::fprintf(stderr, "gpu busy: no kernel or copy was recorded\n");
    return;
  }
  std::vector<edge> edges;
  std::vector<tally> windows;
  for (const span& s : spans) {
    double const fill = std::min(1.0, static_cast<double>(s.grid) / std::max<std::uint32_t>(sms, 1));
    edges.push_back({s.start, +1, fill});
    edges.push_back({s.end, -1, fill});
    std::size_t const index = window_of(std::max(s.start, origin_ns));
    if (index >= windows.size()) windows.resize(index + 1);
    (s.grid > 0 ? windows[index].kernel_count : windows[index].copy_count)++;
  }
  std::sort(edges.begin(), edges.end(), [](const edge& a, const edge& b) { return a.t < b.t; });
  int running = 0;
  int kernels = 0;
  double fill = 0.0;
  for (std::size_t i = 0; i + 1 < edges.size(); ++i) {
    running += edges[i].sign;
    if (edges[i].fill > 0.0) {
      kernels += edges[i].sign;
      fill += edges[i].sign * edges[i].fill;
    }
    if (kernels == 0) fill = 0.0;  // no rounding left over between kernels
    if (edges[i].t >= origin_ns) spread(windows, edges[i].t, edges[i + 1].t, running, kernels, fill);
  }
  tally whole;
  std::size_t first = windows.size();
  std::size_t last = 0;
  for (std::size_t i = 0; i < windows.size(); ++i) {
    tally const& t = windows[i];
    if (t.kernel_count + t.copy_count == 0 && t.any == 0.0) continue;
    first = std::min(first, i);
    last = i;
    print_line("", 1e-9 * window_ns * static_cast<double>(i), 1e-9 * window_ns * static_cast<double>(i + 1), t,
               window_ns);
    whole.any += t.any;
    whole.kernels += t.kernels;
    whole.filled += t.filled;
    whole.kernel_count += t.kernel_count;
    whole.copy_count += t.copy_count;
  }
  if (first <= last) {
    double const length = window_ns * static_cast<double>(last + 1 - first);
    print_line("all windows ", 1e-9 * window_ns * static_cast<double>(first),
               1e-9 * window_ns * static_cast<double>(last + 1), whole, length);
  }
  if (sms == 0) std::fprintf(stderr, "gpu busy: the SM count was not recorded; SMs counts each grid as one SM\n");
}

}  // namespace

extern "C" int InitializeInjection()
{
  if (const char* ms = std::getenv("MCPRICE_GPU_BUSY_MS")) window_ns = std::max(1.0, std::atof(ms)) * 1e6;
  if (cuptiGetTimestamp(&origin_ns) != CUPTI_SUCCESS ||
      cuptiActivityRegisterCallbacks(give_buffer, take_buffer) != CUPTI_SUCCESS ||
      cuptiActivityEnable(CUPTI_ACTIVITY_KIND_DEVICE) != CUPTI_SUCCESS ||
      cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) != CUPTI_SUCCESS ||
      cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY) != CUPTI_SUCCESS ||
      cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET) != CUPTI_SUCCESS) {
    std::fprintf(stderr, "gpu busy: CUPTI refused the activity records; nothing is measured\n");
    return 0;
  }
  std::atexit(report);
  std::fprintf(stderr, "gpu busy: recording kernels, copies and memsets in windows of %.1f ms\n", window_ns * 1e-6);
  return 1;
}
