// The allocation experiment of the scratch-memory issue: 2000 jobs of mixed sizes (80% of
// 1-4 MiB, 17% of 8-64 MiB, 3% of 128-512 MiB), two kernels per job (write, then read and
// reduce the buffer), a host synchronisation every 16 jobs. The same job list runs with each
// way of getting the scratch buffer; the strategies take turns for 7 rounds (so drift in clocks
// or load hits them alike), times are medians, and ratios are to the hoisted buffer measured in
// the same run.
#include "mcprice/memory/bucketed_pool_resource.hpp"
#include "mcprice/memory/cuda_error.hpp"
#include "mcprice/memory/cuda_resources.hpp"
#include "mcprice/memory/device_buffer.hpp"
#include "mcprice/memory/mapped_page_resource.hpp"
#include "mcprice/memory/stream.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace {

using clock_type = std::chrono::steady_clock;

__global__ void fill(float* p, std::size_t n, float v)
{
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x)
    p[i] = v;
}

__global__ void reduce(const float* p, std::size_t n, float* out)
{
  float acc = 0.0F;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x)
    acc += p[i];
  if (acc == -1.0F) *out = acc;  // keeps the loads; never true for the filled values
}

std::vector<std::size_t> job_sizes(int jobs)
{
  std::mt19937_64 gen(2026);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<std::size_t> sizes;
  constexpr double mib = 1024.0 * 1024.0;
  for (int j = 0; j < jobs; ++j) {
    double const kind = u(gen);
    double const lo = kind < 0.80 ? 1.0 : kind < 0.97 ? 8.0 : 128.0;
    double const hi = kind < 0.80 ? 4.0 : kind < 0.97 ? 64.0 : 512.0;
    sizes.push_back(static_cast<std::size_t>((lo + (hi - lo) * u(gen)) * mib) / 256 * 256);
  }
  return sizes;
}

struct strategy {
  std::string name;
  std::function<void*(std::size_t, cudaStream_t)> allocate;
  std::function<void(void*, std::size_t, cudaStream_t)> release;
};

struct outcome {
  double ms;
  double alloc_p50_us;
  double alloc_p99_us;
};

outcome run(const strategy& st, const std::vector<std::size_t>& sizes, cudaStream_t s, float* sink)
{
  std::vector<double> alloc_us;
  alloc_us.reserve(sizes.size());
  MCPRICE_CUDA_TRY(cudaStreamSynchronize(s));
  auto const t0 = clock_type::now();
  for (std::size_t j = 0; j < sizes.size(); ++j) {
    auto const a0 = clock_type::now();
    auto* p = static_cast<float*>(st.allocate(sizes[j], s));
    alloc_us.push_back(std::chrono::duration<double, std::micro>(clock_type::now() - a0).count());
    std::size_t const n = sizes[j] / sizeof(float);
    fill<<<528, 256, 0, s>>>(p, n, 1.0F);
    reduce<<<528, 256, 0, s>>>(p, n, sink);
    MCPRICE_CHECK_LAUNCH("alloc bench kernels");
    st.release(p, sizes[j], s);
    if (j % 16 == 15) MCPRICE_CUDA_TRY(cudaStreamSynchronize(s));
  }
  MCPRICE_CUDA_TRY(cudaStreamSynchronize(s));
  double const ms = std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
  std::sort(alloc_us.begin(), alloc_us.end());
  return {ms, alloc_us[alloc_us.size() / 2], alloc_us[alloc_us.size() * 99 / 100]};
}

void set_default_pool_threshold(std::uint64_t bytes)
{
  cudaMemPool_t pool = nullptr;
  MCPRICE_CUDA_TRY(cudaDeviceGetDefaultMemPool(&pool, 0));
  MCPRICE_CUDA_TRY(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &bytes));
}

}  // namespace

int main()
{
  using namespace mcprice;
  auto const sizes = job_sizes(2000);
  std::size_t const largest = *std::max_element(sizes.begin(), sizes.end());
  stream s;
  device_buffer sink(sizeof(float));
  device_buffer hoisted(largest);

  // The bucketed pool as the engine builds it (gpu_context.cpp): over pages it maps itself.
  cuda_event_ordering events;
  bucketed_pool_options const bo = engine_pool_options();
  auto const driver = make_cuda_page_driver(0);
  mapped_page_options const page_options = engine_page_options();
  mapped_page_resource pages(*driver, events, page_options);
  bucketed_pool_options on_pages = over_mapped_pages(bo);
  on_pages.classes.page_bytes = driver->page_size();
  bucketed_pool_resource bucketed(pages, events, on_pages);
  // The same over pages of their own, but never taking a cached larger block before growing:
  // the design choice over_mapped_pages makes, measured.
  mapped_page_resource pages_larger(*driver, events, page_options);
  bucketed_pool_options larger = on_pages;
  larger.larger_before_growth = false;
  bucketed_pool_resource bucketed_larger(pages_larger, events, larger);
  // And as it was built before, and still is where pages cannot be mapped: over a driver pool
  // that keeps nothing it is given back.
  explicit_pool_options below;
  below.release_threshold = 0;
  below.opportunistic_reuse = true;
  explicit_pool_resource upstream(below);
  bucketed_pool_resource bucketed_old(upstream, events, bo);
  explicit_pool_resource raw_pool(explicit_pool_options{});

  std::uint64_t original_threshold = 0;
  cudaMemPool_t default_pool = nullptr;
  MCPRICE_CUDA_TRY(cudaDeviceGetDefaultMemPool(&default_pool, 0));
  MCPRICE_CUDA_TRY(cudaMemPoolGetAttribute(default_pool, cudaMemPoolAttrReleaseThreshold, &original_threshold));

  auto const async_alloc = [](std::size_t b, cudaStream_t st) {
    void* p = nullptr;
    MCPRICE_CUDA_TRY(cudaMallocAsync(&p, b, st));
    return p;
  };
  auto const async_free = [](void* p, std::size_t, cudaStream_t st) { MCPRICE_CUDA_TRY(cudaFreeAsync(p, st)); };
  std::vector<strategy> strategies = {
      {"hoisted", [&](std::size_t, cudaStream_t) { return hoisted.data(); }, [](void*, std::size_t, cudaStream_t) {}},
      {"malloc per job",
       [](std::size_t b, cudaStream_t) {
         void* p = nullptr;
         MCPRICE_CUDA_TRY(cudaMalloc(&p, b));
         return p;
       },
       [](void* p, std::size_t, cudaStream_t) { MCPRICE_CUDA_TRY(cudaFree(p)); }},
      {"default pool, threshold 0", async_alloc, async_free},
      {"default pool, raised threshold", async_alloc, async_free},
      {"explicit pool (mcprice pool)",
       [&](std::size_t b, cudaStream_t st) { return raw_pool.allocate(b, stream_view{st}); },
       [&](void* p, std::size_t b, cudaStream_t st) { raw_pool.deallocate(p, b, stream_view{st}); }},
      {"bucketed pool (mcprice)", [&](std::size_t b, cudaStream_t st) { return bucketed.allocate(b, stream_view{st}); },
       [&](void* p, std::size_t b, cudaStream_t st) { bucketed.deallocate(p, b, stream_view{st}); }},
      {"bucketed, never larger blocks",
       [&](std::size_t b, cudaStream_t st) { return bucketed_larger.allocate(b, stream_view{st}); },
       [&](void* p, std::size_t b, cudaStream_t st) { bucketed_larger.deallocate(p, b, stream_view{st}); }},
      {"bucketed over a driver pool",
       [&](std::size_t b, cudaStream_t st) { return bucketed_old.allocate(b, stream_view{st}); },
       [&](void* p, std::size_t b, cudaStream_t st) { bucketed_old.deallocate(p, b, stream_view{st}); }},
  };

  constexpr int rounds = 7;
  std::vector<std::vector<outcome>> results(strategies.size());
  for (int round = -1; round < rounds; ++round) {  // round -1 warms every strategy up
    for (std::size_t i = 0; i < strategies.size(); ++i) {
      auto const& st = strategies[i];
      if (st.name == "default pool, threshold 0") set_default_pool_threshold(0);
      if (st.name == "default pool, raised threshold") set_default_pool_threshold(~std::uint64_t{0});
      outcome const o = run(st, sizes, s.value(), sink.as<float>());
      if (round >= 0) results[i].push_back(o);
      set_default_pool_threshold(original_threshold);
    }
  }
  std::printf("%-34s %10s %9s %9s %12s %12s\n", "strategy", "ms", "x hoisted", "spread", "alloc p50 us",
              "alloc p99 us");
  double hoisted_ms = 0.0;
  for (std::size_t i = 0; i < strategies.size(); ++i) {
    auto& r = results[i];
    std::sort(r.begin(), r.end(), [](const outcome& a, const outcome& b) { return a.ms < b.ms; });
    outcome const& m = r[r.size() / 2];
    if (i == 0) hoisted_ms = m.ms;
    std::printf("%-34s %10.2f %9.3f %8.1f%% %12.2f %12.2f\n", strategies[i].name.c_str(), m.ms, m.ms / hoisted_ms,
                100.0 * (r.back().ms - r.front().ms) / m.ms, m.alloc_p50_us, m.alloc_p99_us);
  }
  auto const stats = bucketed.statistics();
  std::printf(
      "bucketed pool: reserved peak %.1f MiB for a requested peak of %.1f MiB (1 - R/A at the peaks %.1f%%), "
      "upstream grows %llu, hits %llu of %llu allocations\n",
      static_cast<double>(stats.reserved_peak) / 1048576.0, static_cast<double>(stats.requested_peak) / 1048576.0,
      100.0 * (1.0 - static_cast<double>(stats.requested_peak) / static_cast<double>(stats.allocated_peak)),
      static_cast<unsigned long long>(stats.upstream_grows),
      static_cast<unsigned long long>(stats.allocations - stats.upstream_grows),
      static_cast<unsigned long long>(stats.allocations));
  // What each pool held from the driver at its peak: the one footprint (memory_report::held_peak).
  auto const held = pages.usage();
  auto const held_larger = pages_larger.usage();
  std::printf("never larger blocks: held %.1f MiB at peak (%.2fx), %llu growths\n",
              static_cast<double>(held_larger.held_peak) / 1048576.0,
              static_cast<double>(held_larger.held_peak) / static_cast<double>(bucketed_larger.statistics().requested_peak),
              static_cast<unsigned long long>(bucketed_larger.statistics().upstream_grows));
  auto const old_held = upstream.driver_usage();
  auto const raw = raw_pool.driver_usage();
  auto const peak = static_cast<double>(stats.requested_peak);
  std::printf("held from the driver at peak: bucketed %.1f MiB (%.2fx its requested peak), bucketed over a driver "
              "pool %.1f MiB (%.2fx), explicit pool %.1f MiB (%.2fx); pages created %llu, mapped %llu times\n",
              static_cast<double>(held.held_peak) / 1048576.0, static_cast<double>(held.held_peak) / peak,
              static_cast<double>(old_held.reserved_high) / 1048576.0,
              static_cast<double>(old_held.reserved_high) / peak, static_cast<double>(raw.reserved_high) / 1048576.0,
              static_cast<double>(raw.reserved_high) / peak, static_cast<unsigned long long>(held.pages_created),
              static_cast<unsigned long long>(held.maps));
  return 0;
}
