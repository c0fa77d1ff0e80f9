// Admission under a pool limit: the gate's waits and refusals, a lease that must not wait while
// holding, and the bucketed pool's partial trims and non-releasable bytes beneath it.
#include "mcprice/memory/scratch_gate.hpp"
#include "catch.hpp"
#include "fake_device.hpp"
#include "mcprice/memory/bucketed_pool_resource.hpp"
#include "mcprice/memory/scratch_lease.hpp"

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

using namespace mcprice;
using namespace mcprice::testing;

namespace {
constexpr std::size_t mib = std::size_t{1} << 20;

bucketed_pool_options limited(std::size_t limit)
{
  bucketed_pool_options o;
  o.classes = {mib, 64 * mib, 4};
  o.limit_bytes = limit;
  o.headroom = -1.0;
  return o;
}
}  // namespace

TEST_CASE("the gate admits what fits, refuses a holder more, and lets a lone job through")
{
  scratch_gate gate(10 * mib);
  CHECK(gate.try_acquire(6 * mib));
  CHECK_FALSE(gate.try_acquire(5 * mib));  // 11 MiB > 10
  CHECK(gate.try_acquire(4 * mib));
  gate.release(10 * mib);
  CHECK(gate.try_acquire(25 * mib));  // nothing else admitted: a lone job goes through
  gate.release(25 * mib);
  auto const s = gate.statistics();
  CHECK(s.refusals == 1);
  CHECK(s.peak == 25 * mib);
  CHECK(s.in_use == 0);
  CHECK(s.waits == 0);
}

TEST_CASE("a job waiting at the gate goes in when another gives back", "[concurrency]")
{
  scratch_gate gate(10 * mib);
  gate.acquire(8 * mib);
  std::atomic<bool> in{false};
  std::thread waiter([&] {
    gate.acquire(4 * mib);
    in = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  CHECK_FALSE(in.load());
  gate.release(8 * mib);
  waiter.join();
  CHECK(in.load());
  CHECK(gate.statistics().waits == 1);
  CHECK(gate.statistics().wait_s > 0.0);
  gate.release(4 * mib);
}

TEST_CASE("a job admitted alone waits for the others and keeps the gate until it gives back", "[concurrency]")
{
  scratch_gate gate(10 * mib);
  gate.acquire(4 * mib);
  std::atomic<bool> in{false};
  std::thread alone([&] {
    gate.acquire_alone(6 * mib);
    in = true;
  });
  while (gate.statistics().alone_waits == 0) std::this_thread::yield();
  CHECK_FALSE(gate.try_acquire(1 * mib));  // closed to new jobs while one waits to go alone
  CHECK_FALSE(in.load());
  gate.release(4 * mib);
  alone.join();
  CHECK(in.load());
  CHECK_FALSE(gate.try_acquire(1 * mib));  // and while it holds
  gate.release(6 * mib);
  CHECK(gate.try_acquire(1 * mib));
  gate.release(1 * mib);
  CHECK(gate.statistics().in_use == 0);
  // A long-lived holder (a cached graph's scratch) counts against the budget but is never waited
  // for by a job going alone, nor keeps a lone job out.
  CHECK(gate.try_hold(8 * mib));
  gate.acquire_alone(3 * mib);
  gate.release(3 * mib);
  gate.acquire(5 * mib);  // alone beside the holder: let through
  gate.release(5 * mib);
  gate.release_held(8 * mib);
  CHECK(gate.statistics().in_use == 0);
}

TEST_CASE("a pool out of memory beside other jobs sends a lease round again alone; alone, it fails")
{
  fake_upstream up;
  fake_ordering ord;
  bucketed_pool_resource pool(up, ord, limited(8 * mib));
  scratch_gate gate(16 * mib);  // admits more than the pool holds: pages shared in part, say
  scratch_lease other(pool, fake_stream(1), 0, "other", {}, &gate);
  (void)other.allocate(6 * mib);
  std::size_t need = 0;
  {
    scratch_lease lease(pool, fake_stream(2), 0, "7", {}, &gate);
    try {
      (void)lease.allocate(4 * mib);  // 6 + 4 > 8: the pool refuses
      FAIL("expected scratch_busy");
    } catch (const scratch_busy& e) {
      CHECK(e.alone());
      CHECK(e.needed() == pool.granted_size(4 * mib));
      need = e.needed();
    }
  }
  other.release_all();
  {
    scratch_lease lease(pool, fake_stream(2), 0, "7", {}, &gate);
    lease.admit(need, true);
    (void)lease.allocate(4 * mib);
    CHECK_THROWS_AS(lease.allocate(6 * mib), out_of_memory);  // alone and still short: a failure
  }
  CHECK(gate.statistics().alone_waits == 1);
  CHECK(gate.statistics().in_use == 0);
}

TEST_CASE("a lease admitted for some scratch is refused more rather than made to wait")
{
  fake_upstream up;
  fake_ordering ord;
  bucketed_pool_resource pool(up, ord, limited(8 * mib));
  scratch_gate gate(8 * mib);
  scratch_lease other(pool, fake_stream(1), 0, "other", {}, &gate);
  (void)other.allocate(4 * mib);
  scratch_lease lease(pool, fake_stream(2), 0, "job 3", {}, &gate);
  (void)lease.allocate(2 * mib);
  try {
    (void)lease.allocate(3 * mib);  // 4 + 2 + 3 > 8: it holds 2, so no wait
    FAIL("expected scratch_busy");
  } catch (const scratch_busy& e) {
    // Its whole need in the pool's units: the 2 MiB and the 3 MiB classes.
    CHECK(e.needed() == pool.granted_size(2 * mib) + pool.granted_size(3 * mib));
  }
  CHECK(pool.statistics().requested == 6 * mib);  // the refused request never reached the pool
  lease.release_all();
  other.release_all();
  CHECK(gate.statistics().in_use == 0);
}

TEST_CASE("jobs under a pool limit all finish: they wait or come again, none runs out of memory", "[concurrency]")
{
  fake_upstream up;
  fake_ordering ord;
  std::size_t const limit = 24 * mib;
  bucketed_pool_resource pool(up, ord, limited(limit));
  scratch_gate gate(limit);
  std::atomic<int> retries{0}, done{0}, out_of_memory_events{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 6; ++t) {
    threads.emplace_back([&, t] {
      for (int j = 0; j < 40; ++j) {
        std::size_t need = 0;
        for (;;) {
          try {
            scratch_lease lease(pool, fake_stream(t + 1), 0, "job", {}, &gate);
            lease.admit(need);
            for (int k = 0; k < 3; ++k) (void)lease.allocate((1 + static_cast<std::size_t>((t + j + k) % 4)) * mib);
            break;
          } catch (const scratch_busy& e) {
            need = e.needed();
            ++retries;
          } catch (const out_of_memory&) {
            ++out_of_memory_events;
            break;
          }
        }
        ++done;
      }
    });
  }
  for (auto& th : threads) th.join();
  CHECK(done == 240);
  CHECK(out_of_memory_events == 0);
  auto const s = pool.statistics();
  CHECK(s.reserved <= limit);
  CHECK(s.reserved_peak <= limit);
  CHECK(s.allocated == 0);
  CHECK(gate.statistics().in_use == 0);
  CHECK(gate.statistics().peak <= limit);
}

TEST_CASE("under its limit the pool trims only what it must, blocks the device has passed first")
{
  fake_upstream up;
  fake_ordering ord;
  bucketed_pool_resource pool(up, ord, limited(12 * mib));
  void* a = pool.allocate(4 * mib, fake_stream(1));
  void* b = pool.allocate(4 * mib, fake_stream(1));
  void* c = pool.allocate(2 * mib, fake_stream(1));
  pool.deallocate(a, 4 * mib, fake_stream(1));  // mark 1: pending on the device
  pool.deallocate(b, 4 * mib, fake_stream(1));  // mark 2: passed
  pool.deallocate(c, 2 * mib, fake_stream(1));  // mark 3: pending
  ord.passed_marks = {2};
  auto before = pool.statistics();
  CHECK(before.total_free == 10 * mib);
  CHECK(before.pending_free == 6 * mib);  // non-releasable without a wait
  // 5 MiB class (not cached) needs 5 MiB of room under 12: freeing the passed 4 MiB block
  // is enough, with no wait for the pending blocks: the host waits only for the passed block's
  // free itself (queued on a stream with nothing else), so that the upstream can release it.
  void* d = pool.allocate(5 * mib, fake_stream(2));
  CHECK(ord.synchronized == 1);
  CHECK(ord.waits.empty());
  auto const s = pool.statistics();
  CHECK(s.reserved == 6 * mib + pool.granted_size(5 * mib));
  CHECK(s.total_free == 6 * mib);
  pool.deallocate(d, 5 * mib, fake_stream(2));
}

TEST_CASE("under a limit a request takes only a block of its own class")
{
  fake_upstream up;
  fake_ordering ord;
  bucketed_pool_resource pool(up, ord, limited(64 * mib));
  void* a = pool.allocate(1'600'000, fake_stream(1));
  pool.deallocate(a, 1'600'000, fake_stream(1));
  void* b = pool.allocate(1'200'000, fake_stream(1));  // two classes below: no reach under a limit
  CHECK(b != a);
  CHECK(pool.statistics().allocated == pool.granted_size(1'200'000));
  pool.deallocate(b, 1'200'000, fake_stream(1));
}

TEST_CASE("the cache holds at most the headroom over the live peak, giving back in stream order")
{
  fake_upstream up;
  fake_ordering ord;
  bucketed_pool_options o = limited(0);
  o.headroom = 0.10;
  bucketed_pool_resource pool(up, ord, o);
  void* a = pool.allocate(8 * mib, fake_stream(1));
  void* b = pool.allocate(2 * mib, fake_stream(2));
  pool.deallocate(a, 8 * mib, fake_stream(1));
  pool.deallocate(b, 2 * mib, fake_stream(2));  // 10 MiB cached; the live peak was 10 MiB
  ord.passed_marks = {};
  // 6 MiB class (5.66): live 5.66, peak 10 -> at most 11 MiB held. 10 + 5.66 is too much:
  // stream 3 gives back blocks behind event waits (it freed none, the device passed none).
  void* c = pool.allocate(6 * mib - 256 * 1024, fake_stream(3));
  auto const s = pool.statistics();
  CHECK(s.reserved <= static_cast<std::size_t>(1.10 * 10 * mib));
  CHECK(ord.synchronized == 0);  // never a host wait
  CHECK_FALSE(ord.waits.empty());
  for (auto const& w : ord.waits) CHECK(w.first == fake_stream(3).value());
  pool.deallocate(c, 6 * mib - 256 * 1024, fake_stream(3));
  // A request the cache holds a block for is served from it, with no growth.
  std::size_t const grows = pool.statistics().upstream_grows;
  void* d = pool.allocate(5 * mib, fake_stream(3));
  CHECK(pool.statistics().upstream_grows == grows);
  pool.deallocate(d, 5 * mib, fake_stream(3));
}

TEST_CASE("a request the pool refuses is counted as an out-of-memory failure")
{
  fake_upstream up;
  fake_ordering ord;
  bucketed_pool_resource pool(up, ord, limited(8 * mib));
  void* a = pool.allocate(6 * mib, fake_stream(1));
  CHECK_THROWS_AS(pool.allocate(4 * mib, fake_stream(1)), out_of_memory);  // 6 live + 4 > 8: the limit
  up.capacity = 6 * mib;  // the device itself full: the retry after a trim fails too
  pool.deallocate(a, 6 * mib, fake_stream(1));
  CHECK_THROWS_AS(pool.allocate(7 * mib, fake_stream(2)), out_of_memory);
  auto const s = pool.statistics();
  CHECK(s.failures == 2);
  CHECK(s.oom_retries == 1);  // the device's refusal was retried once, after a trim
}
