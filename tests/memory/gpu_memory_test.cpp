// The memory layer on a real GPU: cross-stream reuse without races (over a driver pool and over
// mapped pages), what mapped pages hold, caps, trims, and the GPUDirect attribute checks.
#include "catch.hpp"
#include "mcprice/memory/bucketed_pool_resource.hpp"
#include "mcprice/memory/cuda_error.hpp"
#include "mcprice/memory/cuda_resources.hpp"
#include "mcprice/memory/device_buffer.hpp"
#include "mcprice/memory/gpudirect_buffer.hpp"
#include "mcprice/memory/mapped_page_resource.hpp"
#include "mcprice/memory/memory_errors.hpp"
#include "mcprice/memory/scratch_lease.hpp"
#include "pattern_kernels.hpp"

#include <cstdint>
#include <utility>
#include <vector>

using namespace mcprice;
using namespace mcprice::testing;

namespace {

// An ordering that orders nothing: the control that shows the ping-pong test can fail.
class no_ordering final : public stream_ordering {
 public:
  order_token record(stream_view) override { return 1; }
  void wait(stream_view, order_token) override {}
  void release(order_token) noexcept override {}
  void synchronize(order_token) override { MCPRICE_CUDA_TRY(cudaDeviceSynchronize()); }
  bool passed(order_token) override { return false; }
};

// Two streams hand one block back and forth; each stream writes its tag and then checks it
// slowly. A block reused without the event wait is overwritten while still being checked.
unsigned long long ping_pong(memory_resource& upstream, stream_ordering& ordering, int rounds,
                             std::uint64_t* cross_stream_reuses)
{
  bucketed_pool_resource pool(upstream, ordering);
  stream a;
  stream b;
  device_buffer counter(sizeof(unsigned long long));
  MCPRICE_CUDA_TRY(cudaMemset(counter.data(), 0, counter.size()));
  std::size_t const words = std::size_t{1} << 20;  // 4 MiB
  for (int r = 0; r < rounds; ++r) {
    stream_view const s = (r % 2 == 0) ? a.view() : b.view();
    auto* p = static_cast<std::uint32_t*>(pool.allocate(words * 4, s));
    write_pattern(p, words, 0x9E3779B9U * static_cast<std::uint32_t>(r + 1), s.value());
    check_pattern(p, words, 0x9E3779B9U * static_cast<std::uint32_t>(r + 1), 4, counter.as<unsigned long long>(),
                  s.value());
    pool.deallocate(p, words * 4, s);
  }
  MCPRICE_CUDA_TRY(cudaDeviceSynchronize());
  unsigned long long bad = 0;
  MCPRICE_CUDA_TRY(cudaMemcpy(&bad, counter.data(), sizeof bad, cudaMemcpyDeviceToHost));
  *cross_stream_reuses = pool.statistics().cross_stream_reuses;
  return bad;
}

}  // namespace

TEST_CASE("cross-stream reuse never hands out a block another stream's kernel still touches", "[gpu]")
{
  explicit_pool_resource upstream(explicit_pool_options{});
  cuda_event_ordering events;
  std::uint64_t reuses = 0;
  CHECK(ping_pong(upstream, events, 40, &reuses) == 0);
  CHECK(reuses >= 39);
}

TEST_CASE("the same ping-pong over mapped pages never races", "[gpu]")
{
  cuda_event_ordering events;
  auto const driver = make_cuda_page_driver(0);
  mapped_page_resource pages(*driver, events);
  std::uint64_t reuses = 0;
  CHECK(ping_pong(pages, events, 40, &reuses) == 0);
  CHECK(reuses >= 39);
}

// A block freed on one stream stays mapped, and out of reach of other streams, until the device
// passes the free: a block taken at once on another stream lies elsewhere, and a slow check of
// the first never sees the second's writes.
TEST_CASE("mapped pages unmap and reuse a freed block only after its stream passes the free", "[gpu]")
{
  cuda_event_ordering events;
  auto const driver = make_cuda_page_driver(0);
  mapped_page_resource pages(*driver, events);
  stream a;
  stream b;
  device_buffer counter(sizeof(unsigned long long));
  MCPRICE_CUDA_TRY(cudaMemset(counter.data(), 0, counter.size()));
  std::size_t const words = (std::size_t{5} << 20) / 4;  // 5 MiB: three pages
  std::vector<void*> seen;
  for (int r = 0; r < 24; ++r) {
    stream_view const s = (r % 2 == 0) ? a.view() : b.view();
    auto* p = static_cast<std::uint32_t*>(pages.allocate(words * 4, s));
    auto const tag = 0x85EBCA6BU * static_cast<std::uint32_t>(r + 1);
    write_pattern(p, words, tag, s.value());
    check_pattern(p, words, tag, 2, counter.as<unsigned long long>(), s.value());
    pages.deallocate(p, words * 4, s);
    seen.push_back(p);
  }
  MCPRICE_CUDA_TRY(cudaDeviceSynchronize());
  unsigned long long bad = 0;
  MCPRICE_CUDA_TRY(cudaMemcpy(&bad, counter.data(), sizeof bad, cudaMemcpyDeviceToHost));
  CHECK(bad == 0);
  CHECK(seen[1] != seen[0]);  // the first block's free was still queued behind its check
  pages.release_unused(0);
  CHECK(pages.usage().held == 0);
}

// What the pages report is what the device lost: its free memory falls by the pages held, and
// comes back when they are released.
TEST_CASE("mapped pages hold from the device exactly what they count", "[gpu]")
{
  cuda_event_ordering events;
  auto const driver = make_cuda_page_driver(0);
  mapped_page_resource pages(*driver, events);
  stream s;
  MCPRICE_CUDA_TRY(cudaDeviceSynchronize());
  std::size_t free_before = 0;
  std::size_t total = 0;
  MCPRICE_CUDA_TRY(cudaMemGetInfo(&free_before, &total));
  std::vector<std::pair<void*, std::size_t>> blocks;
  for (int i = 0; i < 60; ++i) {
    std::size_t const bytes = (std::size_t{1} << 16) * static_cast<std::size_t>(1 + (i * 37) % 97);  // 64 KiB..6 MiB
    blocks.emplace_back(pages.allocate(bytes, s.view()), bytes);
  }
  std::size_t free_during = 0;
  MCPRICE_CUDA_TRY(cudaMemGetInfo(&free_during, &total));
  auto const u = pages.usage();
  INFO("held " << u.held << " B for " << u.live_bytes << " B of blocks; the device lost " << free_before - free_during);
  std::size_t const page = u.page_size;
  CHECK(free_before - free_during <= u.held + 2 * page);  // the driver's own bookkeeping may take a page or two
  CHECK(free_before - free_during + 2 * page >= u.held);
  CHECK(u.held <= u.live_bytes + u.live_bytes / 4 + 4 * page);
  for (auto const& [p, bytes] : blocks) pages.deallocate(p, bytes, s.view());
  s.synchronize();
  pages.release_unused(0);
  std::size_t free_after = 0;
  MCPRICE_CUDA_TRY(cudaMemGetInfo(&free_after, &total));
  CHECK(pages.usage().held == 0);
  CHECK(free_after + 2 * page >= free_before);
}

TEST_CASE("control: without the event wait the same ping-pong is caught racing", "[gpu]")
{
  explicit_pool_resource upstream(explicit_pool_options{});
  no_ordering none;
  std::uint64_t reuses = 0;
  CHECK(ping_pong(upstream, none, 40, &reuses) > 0);
}

TEST_CASE("a lease's cap is enforced on the device pool", "[gpu]")
{
  explicit_pool_resource upstream(explicit_pool_options{});
  cuda_event_ordering events;
  bucketed_pool_resource pool(upstream, events);
  stream s;
  scratch_lease lease(pool, s.view(), std::size_t{1} << 20, "capped job", [&] { pool.note_cap_rejection(); });
  (void)lease.allocate(std::size_t{768} << 10);
  CHECK_THROWS_AS(lease.allocate(std::size_t{512} << 10), scratch_cap_exceeded);
  CHECK(pool.statistics().cap_rejections == 1);
}

TEST_CASE("a trim gives pool memory back to the device", "[gpu]")
{
  explicit_pool_options o;
  o.release_threshold = ~std::size_t{0};
  explicit_pool_resource upstream(o);
  cuda_event_ordering events;
  bucketed_pool_resource pool(upstream, events);
  stream s;
  std::vector<void*> blocks;
  for (int i = 0; i < 8; ++i) blocks.push_back(pool.allocate(std::size_t{32} << 20, s.view()));
  for (void* p : blocks) pool.deallocate(p, std::size_t{32} << 20, s.view());
  s.synchronize();
  CHECK(upstream.driver_usage().reserved_current >= std::size_t{256} << 20);
  pool.trim();  // frees on the default stream, after waiting for each block's last use
  MCPRICE_CUDA_TRY(cudaStreamSynchronize(nullptr));
  upstream.trim_to(0);
  CHECK(pool.statistics().reserved == 0);
  CHECK(upstream.driver_usage().reserved_current < std::size_t{32} << 20);
}

TEST_CASE("market buffers pass the GPUDirect RDMA checks; pool memory fails them", "[gpu]")
{
  gpudirect_buffer const market(std::size_t{3} << 20);
  CHECK(reinterpret_cast<std::uintptr_t>(market.data()) % gpudirect_buffer::page == 0);
  auto const a = query_rdma_attributes(market.data());
  CHECK(a.rdma_capable);
  CHECK_FALSE(a.from_pool);
  CHECK(a.sync_memops);

  explicit_pool_resource pool(explicit_pool_options{});
  stream s;
  void* p = pool.allocate(std::size_t{1} << 20, s.view());
  auto const b = query_rdma_attributes(p);
  CHECK(b.from_pool);
  CHECK_FALSE(b.rdma_capable);
  pool.deallocate(p, std::size_t{1} << 20, s.view());
  s.synchronize();
}
