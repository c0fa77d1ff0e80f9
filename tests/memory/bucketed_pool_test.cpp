// The scratch pool's bookkeeping on a fake device: classes, reuse rules, limits, trims,
// out-of-memory retries, caps and statistics.
#include "catch.hpp"
#include "fake_device.hpp"
#include "mcprice/memory/bucketed_pool_resource.hpp"
#include "mcprice/memory/persistent_arena.hpp"
#include "mcprice/memory/scratch_lease.hpp"

#include <atomic>
#include <chrono>
#include <cmath>
#include <thread>

using namespace mcprice;
using namespace mcprice::testing;

namespace {
bucketed_pool_options small_classes(std::size_t limit = 0)
{
  bucketed_pool_options o;
  o.classes = {std::size_t{1} << 20, std::size_t{64} << 20, 4};  // 1 MiB .. 64 MiB
  o.limit_bytes = limit;
  o.headroom = -1.0;  // cache without bound: these cases test reuse, limits and trims alone
  return o;
}
}  // namespace

TEST_CASE("size classes are geometric, 256-byte multiples, and bound the rounding")
{
  size_classes const c({std::size_t{1} << 20, std::size_t{1} << 30, 4});
  CHECK(c.size_of(0) == std::size_t{1} << 20);
  CHECK(c.size_of(4) == std::size_t{2} << 20);
  CHECK(c.size_of(c.count() - 1) == std::size_t{1} << 30);
  CHECK(c.count() == 41);
  for (int i = 0; i < c.count(); ++i) {
    CHECK(c.size_of(i) % 256 == 0);
    if (i > 0)
      CHECK(static_cast<double>(c.size_of(i)) / static_cast<double>(c.size_of(i - 1)) <= std::pow(2.0, 0.25) + 1e-3);
  }
  CHECK(c.class_of(1) == 0);
  CHECK(c.class_of((std::size_t{1} << 20) + 1) == 1);
  CHECK(c.class_of((std::size_t{1} << 30) + 1) == -1);
  // Over 2 MiB pages, classes of a page or more are whole pages: 2, 4, 6, 8, 10, ... MiB.
  size_classes const paged({std::size_t{1} << 20, std::size_t{1} << 30, 4, std::size_t{2} << 20});
  CHECK(paged.size_of(paged.class_of(std::size_t{3} << 20)) == std::size_t{4} << 20);
  CHECK(paged.size_of(paged.class_of((std::size_t{4} << 20) + 1)) == std::size_t{6} << 20);
  CHECK(paged.size_of(paged.class_of(std::size_t{1500} << 10)) < std::size_t{2} << 20);  // below a page: as before
  for (int i = 0; i < paged.count(); ++i) {
    if (paged.size_of(i) >= std::size_t{2} << 20) CHECK(paged.size_of(i) % (std::size_t{2} << 20) == 0);
  }
}

TEST_CASE("a block freed on a stream is reused on it at once, with no wait")
{
  fake_upstream up;
  fake_ordering ord;
  bucketed_pool_resource pool(up, ord, small_classes());
  void* a = pool.allocate(1'500'000, fake_stream(1));
  pool.deallocate(a, 1'500'000, fake_stream(1));
  void* b = pool.allocate(1'600'000, fake_stream(1));  // same class (1.43 and 1.53 MiB)
  CHECK(a == b);
  CHECK(ord.waits.empty());
  CHECK(up.allocations == 1);
  auto const s = pool.statistics();
  CHECK(s.cross_stream_reuses == 0);
  CHECK(s.classes[static_cast<std::size_t>(pool.classes().class_of(1'500'000))].hits == 1);
}

TEST_CASE("reuse on another stream waits on the freeing stream's mark")
{
  fake_upstream up;
  fake_ordering ord;
  bucketed_pool_resource pool(up, ord, small_classes());
  void* a = pool.allocate(3 << 20, fake_stream(1));
  pool.deallocate(a, 3 << 20, fake_stream(1));
  REQUIRE(ord.recorded == 1);
  void* b = pool.allocate(3 << 20, fake_stream(2));
  CHECK(a == b);
  REQUIRE(ord.waits.size() == 1);
  CHECK(ord.waits[0].first == fake_stream(2).value());
  CHECK(ord.waits[0].second == 1);
  auto const s = pool.statistics();
  CHECK(s.cross_stream_reuses == 1);
  CHECK(s.event_waits == 1);
}

TEST_CASE("reuse on another stream skips the wait when the device has passed the free")
{
  fake_upstream up;
  fake_ordering ord;
  bucketed_pool_resource pool(up, ord, small_classes());
  void* a = pool.allocate(3 << 20, fake_stream(1));
  void* b = pool.allocate(3 << 20, fake_stream(1));
  pool.deallocate(a, 3 << 20, fake_stream(1));  // mark 1
  pool.deallocate(b, 3 << 20, fake_stream(1));  // mark 2
  ord.passed_marks = {1};                       // a's free is done on the device, b's is not
  CHECK(pool.allocate(3 << 20, fake_stream(2)) == a);
  CHECK(ord.waits.empty());
  CHECK(pool.allocate(3 << 20, fake_stream(2)) == b);  // only a pending block is left: wait on it
  REQUIRE(ord.waits.size() == 1);
  CHECK(ord.waits[0].second == 2);
  auto const s = pool.statistics();
  CHECK(s.cross_stream_reuses == 2);
  CHECK(s.event_waits == 1);
}

TEST_CASE("a small pool grows rather than wait on another stream's pending free")
{
  fake_upstream up;
  fake_ordering ord;
  auto o = small_classes();
  o.untied_bytes = std::size_t{12} << 20;  // three 3 MiB-class blocks
  o.headroom = 0.05;  // the headroom would have the pending block back (with a wait) before growing
  bucketed_pool_resource pool(up, ord, o);
  void* a = pool.allocate(3 << 20, fake_stream(1));
  void* b = pool.allocate(3 << 20, fake_stream(1));
  pool.deallocate(a, 3 << 20, fake_stream(1));  // mark 1
  pool.deallocate(b, 3 << 20, fake_stream(1));  // mark 2
  ord.passed_marks = {1};
  CHECK(pool.allocate(3 << 20, fake_stream(2)) == a);  // passed: reused, no wait
  void* c = pool.allocate(3 << 20, fake_stream(2));    // b still pending: a new block
  CHECK(c != b);
  CHECK(ord.waits.empty());
  CHECK(up.allocations == 3);
  CHECK(pool.allocate(3 << 20, fake_stream(1)) == b);  // its own stream takes it at once
  CHECK(pool.statistics().event_waits == 0);
  // Past untied_bytes the pool waits again rather than grow.
  pool.deallocate(c, 3 << 20, fake_stream(2));  // pending on stream 2
  void* e = pool.allocate(3 << 20, fake_stream(3));
  CHECK(e == c);
  CHECK(ord.waits.size() == 1);
  // Under a limit the same pool waits instead of growing past it.
  fake_upstream up2;
  fake_ordering ord2;
  auto limited = o;
  limited.limit_bytes = pool.classes().size_of(pool.classes().class_of(3 << 20));
  bucketed_pool_resource tight(up2, ord2, limited);
  void* d = tight.allocate(3 << 20, fake_stream(1));
  tight.deallocate(d, 3 << 20, fake_stream(1));
  CHECK(tight.allocate(3 << 20, fake_stream(2)) == d);
  CHECK(ord2.waits.size() == 1);
}

TEST_CASE("requests above the largest class bypass the cache")
{
  fake_upstream up;
  fake_ordering ord;
  bucketed_pool_resource pool(up, ord, small_classes());
  void* big = pool.allocate(std::size_t{100} << 20, fake_stream(1));
  CHECK(pool.statistics().reserved == std::size_t{100} << 20);
  pool.deallocate(big, std::size_t{100} << 20, fake_stream(1));
  CHECK(up.live.empty());
  CHECK(pool.statistics().reserved == 0);
}

TEST_CASE("statistics: R, A, V, peaks and the three fragmentation measures")
{
  fake_upstream up;
  fake_ordering ord;
  bucketed_pool_resource pool(up, ord, small_classes());
  std::size_t const r1 = 1'000'000;
  std::size_t const r2 = 5'000'000;
  void* a = pool.allocate(r1, fake_stream(1));
  void* b = pool.allocate(r2, fake_stream(1));
  std::size_t const a1 = pool.classes().size_of(pool.classes().class_of(r1));
  std::size_t const a2 = pool.classes().size_of(pool.classes().class_of(r2));
  auto s = pool.statistics();
  CHECK(s.requested == r1 + r2);
  CHECK(s.allocated == a1 + a2);
  CHECK(s.reserved == a1 + a2);
  CHECK(std::abs(s.internal_fragmentation() - (1.0 - double(r1 + r2) / double(a1 + a2))) < 1e-12);
  CHECK(s.cached_unused_fraction() == 0.0);
  pool.deallocate(b, r2, fake_stream(1));
  s = pool.statistics();
  CHECK(s.requested == r1);
  CHECK(s.requested_peak == r1 + r2);
  CHECK(s.reserved == a1 + a2);
  CHECK(s.total_free == a2);
  CHECK(s.largest_free_block == a2);
  CHECK(s.external_fragmentation() == 0.0);
  CHECK(std::abs(s.cached_unused_fraction() - (1.0 - double(a1) / double(a1 + a2))) < 1e-12);
  pool.deallocate(a, r1, fake_stream(1));
  s = pool.statistics();
  CHECK(s.total_free == a1 + a2);
  CHECK(std::abs(s.external_fragmentation() - (1.0 - double(a2) / double(a1 + a2))) < 1e-12);
  CHECK(s.allocations == 2);
  CHECK(s.latency_p99_us >= s.latency_p50_us);
}

TEST_CASE("trim returns every cached block to the upstream, after waiting for its free")
{
  fake_upstream up;
  fake_ordering ord;
  bucketed_pool_resource pool(up, ord, small_classes());
  void* a = pool.allocate(2 << 20, fake_stream(1));
  void* b = pool.allocate(8 << 20, fake_stream(2));
  pool.deallocate(a, 2 << 20, fake_stream(1));
  pool.deallocate(b, 8 << 20, fake_stream(2));
  pool.trim();
  CHECK(up.live.empty());
  CHECK(ord.synchronized == 2);
  auto const s = pool.statistics();
  CHECK(s.reserved == 0);
  CHECK(s.trims == 1);
  CHECK(s.upstream_releases == 2);
}

TEST_CASE("an upstream failure trims the cache and retries before reporting out of memory")
{
  fake_upstream up;
  fake_ordering ord;
  bucketed_pool_resource pool(up, ord, small_classes());
  up.capacity = std::size_t{10} << 20;
  void* a = pool.allocate(6 << 20, fake_stream(1));
  pool.deallocate(a, 6 << 20, fake_stream(1));       // cached: 6+ MiB held upstream
  void* b = pool.allocate(9 << 20, fake_stream(1));  // a different class: needs the trim
  CHECK(b != nullptr);
  auto const s = pool.statistics();
  CHECK(s.oom_retries == 1);
  CHECK(s.trims == 1);
  CHECK_THROWS_AS(pool.allocate(9 << 20, fake_stream(1)), out_of_memory);
}

TEST_CASE("the pool-wide limit is enforced after a trim")
{
  fake_upstream up;
  fake_ordering ord;
  bucketed_pool_resource pool(up, ord, small_classes(std::size_t{16} << 20));
  void* a = pool.allocate(8 << 20, fake_stream(1));
  pool.deallocate(a, 8 << 20, fake_stream(1));
  void* b = pool.allocate(12 << 20, fake_stream(1));  // fits only once the 8 MiB block is trimmed
  CHECK(pool.statistics().reserved <= std::size_t{16} << 20);
  CHECK_THROWS_AS(pool.allocate(8 << 20, fake_stream(1)), out_of_memory);
  pool.deallocate(b, 12 << 20, fake_stream(1));
}

TEST_CASE("a lease enforces its cap without touching the pool, and returns everything")
{
  fake_upstream up;
  fake_ordering ord;
  bucketed_pool_resource pool(up, ord, small_classes());
  {
    scratch_lease lease(pool, fake_stream(1), std::size_t{4} << 20, "trade T1 paths 0-1M",
                        [&] { pool.note_cap_rejection(); });
    (void)lease.allocate(3 << 20);
    std::size_t const allocations = pool.statistics().allocations;
    try {
      (void)lease.allocate(2 << 20);
      FAIL("expected scratch_cap_exceeded");
    } catch (const scratch_cap_exceeded& e) {
      CHECK(e.job() == "trade T1 paths 0-1M");
      CHECK(e.cap() == std::size_t{4} << 20);
      CHECK(e.in_use() == std::size_t{3} << 20);
      CHECK(e.requested() == std::size_t{2} << 20);
    }
    CHECK(pool.statistics().allocations == allocations);
    CHECK(pool.statistics().cap_rejections == 1);
  }
  CHECK(pool.statistics().allocated == 0);
  CHECK(pool.statistics().requested == 0);
}

TEST_CASE("a request may take a cached block up to reuse_reach classes larger")
{
  fake_upstream up;
  fake_ordering ord;
  bucketed_pool_resource pool(up, ord, small_classes());
  void* a = pool.allocate(1'600'000, fake_stream(1));  // 1.68 MiB class
  pool.deallocate(a, 1'600'000, fake_stream(1));
  void* b = pool.allocate(1'200'000, fake_stream(1));  // 1.19 MiB class: two below
  CHECK(a == b);
  CHECK(up.allocations == 1);
  auto const s = pool.statistics();
  CHECK(s.allocated == pool.classes().size_of(pool.classes().class_of(1'600'000)));
  pool.deallocate(b, 1'200'000, fake_stream(1));
  // Three classes below, beyond the hot path's reach: the slow path still takes the larger block
  // rather than grow (no limit), and the statistics show the rounding.
  void* c = pool.allocate(1'000'000, fake_stream(1));
  CHECK(c == a);
  CHECK(up.allocations == 1);
  CHECK(pool.statistics().internal_fragmentation() > 0.35);
  pool.deallocate(c, 1'000'000, fake_stream(1));
}

TEST_CASE("the upstream keeps what the pool's headroom allows, no more")
{
  fake_upstream up;
  fake_ordering ord;
  bucketed_pool_options o = small_classes();
  o.headroom = 0.05;
  bucketed_pool_resource pool(up, ord, o);
  void* a = pool.allocate(std::size_t{40} << 20, fake_stream(1));
  pool.deallocate(a, std::size_t{40} << 20, fake_stream(1));
  void* b = pool.allocate(std::size_t{48} << 20, fake_stream(1));  // a larger class: a's block goes back
  CHECK(up.frees == 1);
  // The free is queued behind the stream's work, so the upstream releases nothing yet: over
  // mapped pages a release there unmapped pages the growth that followed mapped again.
  CHECK(up.unused_releases == 0);
  order_token const after_free = ord.last;
  void* c = pool.allocate(std::size_t{1} << 20, fake_stream(2));
  CHECK(up.unused_releases == 0);  // not passed yet
  pool.deallocate(c, std::size_t{1} << 20, fake_stream(2));
  // Once the device passes the mark after the free, the next slow path has the upstream keep
  // only the headroom over the peak need (b's class and c's, live at once).
  ord.passed_marks.push_back(after_free);
  void* d = pool.allocate(std::size_t{1} << 20, fake_stream(3));  // c's block, behind a wait: no growth
  CHECK(d == c);
  CHECK(up.unused_releases == 1);
  auto const need = [&](std::size_t bytes) { return pool.classes().size_of(pool.classes().class_of(bytes)); };
  CHECK(pool.statistics().needed_peak == need(std::size_t{48} << 20) + need(std::size_t{1} << 20));
  CHECK(up.last_keep == static_cast<std::size_t>(1.05 * static_cast<double>(pool.statistics().needed_peak)));
  pool.deallocate(d, std::size_t{1} << 20, fake_stream(3));
  pool.deallocate(b, std::size_t{48} << 20, fake_stream(1));
}

TEST_CASE("an arena view hands out aligned, disjoint pieces and refuses to overflow")
{
  alignas(256) static char storage[4096];
  arena_view arena(storage, sizeof storage);
  auto* a = static_cast<char*>(arena.allocate(10));
  auto* b = static_cast<char*>(arena.allocate(300));
  CHECK(a == storage);
  CHECK(b == storage + 256);
  CHECK(arena.used() == 556);
  CHECK(arena_view::footprint({10, 300}) == 768);
  CHECK_THROWS_AS(arena.allocate(4000), std::length_error);
}

TEST_CASE("the hot path makes no driver call: a block of the stream's own, or one known passed")
{
  fake_upstream up;
  fake_ordering ord;
  bucketed_pool_resource pool(up, ord, small_classes());
  void* a = pool.allocate(1'500'000, fake_stream(1));
  void* b = pool.allocate(1'500'000, fake_stream(2));
  pool.deallocate(a, 1'500'000, fake_stream(1));
  pool.deallocate(b, 1'500'000, fake_stream(2));
  std::size_t const polls = ord.polls;
  // Each stream takes back its own block: no poll, no wait, no growth.
  CHECK(pool.allocate(1'500'000, fake_stream(1)) == a);
  CHECK(pool.allocate(1'500'000, fake_stream(2)) == b);
  CHECK(ord.polls == polls);
  CHECK(ord.waits.empty());
  CHECK(up.allocations == 2);
  pool.deallocate(a, 1'500'000, fake_stream(1));
  // Stream 3 has no block of its own: the slow path polls, finds the free passed, takes it with
  // no wait; the poll is remembered, so the next stream's hot path takes such a block at once.
  ord.passed_marks = {ord.recorded};
  CHECK(pool.allocate(1'500'000, fake_stream(3)) == a);
  CHECK(ord.polls > polls);
  CHECK(ord.waits.empty());
  pool.deallocate(b, 1'500'000, fake_stream(2));
  pool.deallocate(a, 1'500'000, fake_stream(3));
  ord.passed_marks = {ord.recorded - 1, ord.recorded};
  (void)pool.allocate(3'000'000, fake_stream(4));  // another class: the slow path polls both
  std::size_t const after = ord.polls;
  void* c = pool.allocate(1'500'000, fake_stream(4));
  CHECK((c == a || c == b));
  CHECK(ord.polls == after);
  CHECK(ord.waits.empty());
}

TEST_CASE("what the pool gives back goes back to the device, not into the upstream's cache")
{
  fake_upstream up;
  fake_ordering ord;
  bucketed_pool_resource pool(up, ord, small_classes(std::size_t{8} << 20));
  void* a = pool.allocate(std::size_t{5} << 20, fake_stream(1));
  pool.deallocate(a, std::size_t{5} << 20, fake_stream(1));
  CHECK(up.unused_releases == 0);
  // A second class does not fit beside the cached block under the 8 MiB limit: the block goes
  // back, and the upstream is told to release what it no longer uses.
  void* b = pool.allocate(std::size_t{7} << 20, fake_stream(1));
  CHECK(b != nullptr);
  CHECK(up.frees == 1);
  CHECK(up.unused_releases == 1);
  CHECK(up.live_bytes <= std::size_t{8} << 20);
  pool.deallocate(b, std::size_t{7} << 20, fake_stream(1));
  pool.trim();
  CHECK(up.live_bytes == 0);
  CHECK(up.unused_releases == 2);
}

TEST_CASE("under a limit, blocks given back are freed before the upstream is trimmed")
{
  fake_upstream up;
  fake_ordering ord;
  std::size_t const limit = std::size_t{8} << 20;
  bucketed_pool_resource pool(up, ord, small_classes(limit));
  void* a = pool.allocate(std::size_t{5} << 20, fake_stream(1));
  pool.deallocate(a, std::size_t{5} << 20, fake_stream(1));  // pending on stream 1
  std::size_t const seven = pool.classes().size_of(pool.classes().class_of(std::size_t{7} << 20));
  // Stream 2 needs the room: the host waits for the free on stream 1 and for the free itself
  // (two synchronisations), no stream is tied to another, and the upstream keeps room for the
  // growth alone.
  void* b = pool.allocate(std::size_t{7} << 20, fake_stream(2));
  CHECK(b != nullptr);
  CHECK(ord.synchronized == 2);
  CHECK(ord.waits.empty());
  CHECK(up.frees == 1);
  CHECK(up.unused_releases == 1);
  CHECK(up.last_keep == limit - seven);
  pool.deallocate(b, std::size_t{7} << 20, fake_stream(2));
  // Without a limit a give-back stays in stream order: a wait on the device, none on the host.
  fake_upstream up2;
  fake_ordering ord2;
  auto o = small_classes();
  o.headroom = 0.0;
  bucketed_pool_resource free_pool(up2, ord2, o);
  void* c = free_pool.allocate(std::size_t{40} << 20, fake_stream(1));
  free_pool.deallocate(c, std::size_t{40} << 20, fake_stream(1));
  void* d = free_pool.allocate(std::size_t{48} << 20, fake_stream(2));
  CHECK(d != nullptr);
  CHECK(ord2.synchronized == 0);
  CHECK(up2.frees == 1);
  free_pool.deallocate(d, std::size_t{48} << 20, fake_stream(2));
}

TEST_CASE("a poll of a recycled mark never vouches for a later free")
{
  fake_upstream up;
  fake_ordering ord;
  ord.recycle = true;
  bucketed_pool_resource pool(up, ord, small_classes());
  void* x = pool.allocate(1'500'000, fake_stream(1));
  void* y = pool.allocate(1'500'000, fake_stream(2));
  pool.deallocate(x, 1'500'000, fake_stream(1));
  order_token const m = ord.last;
  // While the pool polls x's free (outside its lock), another thread takes x back on stream 1 (its
  // mark goes back to the spares) and frees y on stream 2, recorded with the same mark again.
  bool fired = false;
  ord.on_poll = [&](order_token t) -> std::optional<bool> {
    if (t != m || fired) return std::nullopt;
    fired = true;
    CHECK(pool.allocate(1'500'000, fake_stream(1)) == x);
    pool.deallocate(y, 1'500'000, fake_stream(2));
    CHECK(ord.last == m);
    return true;  // x's old free has passed
  };
  void* z = pool.allocate(1'500'000, fake_stream(3));
  // y's free, under the recycled mark, is not known passed: stream 3 takes y only behind a wait.
  REQUIRE(z == y);
  REQUIRE(ord.waits.size() == 1);
  CHECK(ord.waits.front().first == fake_stream(3).value());
  CHECK(ord.waits.front().second == m);
}

TEST_CASE("a lease records its allocations, their classes and its high watermark")
{
  fake_upstream up;
  fake_ordering ord;
  bucketed_pool_resource pool(up, ord, small_classes());
  allocation_recorder recorder;
  {
    scratch_lease lease(pool, fake_stream(3), 0, "job 7");
    lease.record_into(&recorder);
    void* a = lease.allocate(100'000);
    (void)lease.allocate(300'000);
    lease.deallocate(a);
    (void)lease.allocate(50'000);
    auto const live = recorder.snapshot();
    REQUIRE(live.allocations.size() == 3);
    CHECK(live.allocations[0].freed_at >= live.allocations[0].allocated_at);
    CHECK(live.allocations[1].freed_at < 0.0);  // still held
    CHECK(live.peak_bytes == scratch_lease::charged(100'000) + scratch_lease::charged(300'000));
  }
  auto const p = recorder.snapshot();
  REQUIRE(p.allocations.size() == 3);
  for (auto const& r : p.allocations) {
    CHECK(r.job == "job 7");
    CHECK(r.freed_at >= r.allocated_at);
    CHECK(r.granted == pool.granted_size(r.bytes));  // the pool's class
    CHECK(r.granted >= r.bytes);
  }
  CHECK(p.allocations[0].bytes == scratch_lease::charged(100'000));
  CHECK(p.allocations[0].stream == p.allocations[2].stream);
  REQUIRE(p.jobs.size() == 1);
  CHECK(p.jobs[0].job == "job 7");
  CHECK(p.jobs[0].peak_bytes == p.peak_bytes);
  // A lease that records nothing adds no job.
  { scratch_lease idle(pool, fake_stream(3), 0, "job 8"); idle.record_into(&recorder); }
  CHECK(recorder.snapshot().jobs.size() == 1);
}

// Growth ahead: a request that had to wait on another stream's pending free marks its class
// short; the upkeep round then grows a block of it, which, once the device has passed its mark,
// the next such request takes on the hot path (no slow path, no wait).
TEST_CASE("the upkeep grows a block ahead for a class that streams waited on")
{
  fake_upstream up;
  fake_ordering ord;
  bucketed_pool_resource pool(up, ord, small_classes());
  std::size_t const bytes = std::size_t{3} << 20;
  void* a = pool.allocate(bytes, fake_stream(1));
  pool.deallocate(a, bytes, fake_stream(1));
  void* b = pool.allocate(bytes, fake_stream(2));  // a's block, behind a wait on stream 1
  CHECK(b == a);
  CHECK(ord.waits.size() == 1);
  pool.upkeep();  // grows one block of the class, marked on the upkeep's own stream
  CHECK(up.allocations == 2);
  CHECK(pool.statistics().grown_ahead == 1);
  pool.upkeep();  // nothing more is short: no second block
  CHECK(up.allocations == 2);
  ord.passed_marks.push_back(ord.last);
  pool.upkeep();  // its mark is passed: any stream may take it at once
  auto const slow = pool.statistics().slow_paths;
  void* c = pool.allocate(bytes, fake_stream(3));
  CHECK(c != a);
  CHECK(pool.statistics().slow_paths == slow);
  CHECK(ord.waits.size() == 1);
  pool.deallocate(b, bytes, fake_stream(2));
  pool.deallocate(c, bytes, fake_stream(3));
}

// The upkeep thread polls other streams' frees, so that an allocation on another stream takes
// a passed block on the hot path: the allocating thread polls nothing and waits on nothing.
TEST_CASE("the upkeep thread lets the hot path take other streams' passed frees", "[concurrency]")
{
  fake_upstream up;
  fake_ordering ord;
  std::atomic<order_token> passed{0};
  std::atomic<int> polls_after{0};
  ord.on_poll = [&](order_token t) -> std::optional<bool> {
    if (passed.load() != 0) ++polls_after;
    return t == passed.load();
  };
  bucketed_pool_options o = small_classes();
  o.upkeep_interval_us = 50;
  bucketed_pool_resource pool(up, ord, o);
  std::size_t const bytes = std::size_t{2} << 20;
  void* a = pool.allocate(bytes, fake_stream(1));
  void* never = pool.allocate(bytes * 2, fake_stream(4));
  pool.deallocate(a, bytes, fake_stream(1));
  order_token const a_freed = ord.last;
  pool.deallocate(never, bytes * 2, fake_stream(4));  // its free is never passed: polled each round
  passed = a_freed;
  // Two more polls of the other block: a round after the one that found a's free passed.
  auto const until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (polls_after.load() < 3 && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  REQUIRE(polls_after.load() >= 3);
  auto const slow = pool.statistics().slow_paths;  // the two growths above
  void* b = pool.allocate(bytes, fake_stream(2));
  CHECK(b == a);
  auto const st = pool.statistics();
  CHECK(st.slow_paths == slow);
  CHECK(st.cross_stream_reuses == 1);
  CHECK(ord.waits.empty());
  pool.deallocate(b, bytes, fake_stream(2));
}

// A stream-ordered free ends a request on the host at once and on the device only once the
// device passes it: the pool counts the bytes until then (D), taken back by the stream or not.
TEST_CASE("the need on the device's timeline lasts until each free is known passed")
{
  fake_upstream up;
  fake_ordering ord;
  bucketed_pool_resource pool(up, ord, small_classes());
  std::size_t const bytes = 1'500'000;
  void* a = pool.allocate(bytes, fake_stream(1));
  pool.deallocate(a, bytes, fake_stream(1));
  auto s = pool.statistics();
  CHECK(s.requested == 0);
  CHECK(s.device_requested == bytes);  // the free is queued behind stream 1's work
  void* b = pool.allocate(bytes, fake_stream(2));  // a's block, behind a wait on its free
  CHECK(b == a);
  s = pool.statistics();
  CHECK(s.device_requested == bytes);  // a's block taken behind a wait: one use follows the other
  CHECK(s.device_requested_peak == bytes);
  void* c = pool.allocate(bytes, fake_stream(3));  // a new block: two requests in use at once
  CHECK(pool.statistics().device_requested_peak == 2 * bytes);
  pool.deallocate(b, bytes, fake_stream(2));
  pool.deallocate(c, bytes, fake_stream(3));
  CHECK(pool.statistics().device_requested == 2 * bytes);
  ord.passed_marks.push_back(ord.last - 1);
  ord.passed_marks.push_back(ord.last);
  pool.upkeep();  // the device has passed both frees
  s = pool.statistics();
  CHECK(s.device_requested == 0);
  CHECK(s.device_requested_peak == 2 * bytes);
  CHECK(s.device_requested_peak <= s.reserved_peak);
}

// Over mapped pages a block given back before its free passes keeps its pages until then:
// giving it back to grow only adds the growth's pages. The headroom then gives back only blocks
// the device has passed.
TEST_CASE("without give_back_pending the headroom gives back passed blocks only")
{
  fake_upstream up;
  fake_ordering ord;
  bucketed_pool_options o = small_classes();
  o.headroom = 0.05;
  o.give_back_pending = false;
  bucketed_pool_resource pool(up, ord, o);
  void* a = pool.allocate(std::size_t{40} << 20, fake_stream(1));
  pool.deallocate(a, std::size_t{40} << 20, fake_stream(1));
  void* b = pool.allocate(std::size_t{48} << 20, fake_stream(1));  // at the bound, but a is pending
  CHECK(up.frees == 0);
  CHECK(pool.statistics().reserved > static_cast<std::size_t>(1.05 * static_cast<double>(pool.statistics().needed_peak)));
  pool.deallocate(b, std::size_t{48} << 20, fake_stream(1));
  ord.passed_marks.push_back(ord.last - 1);  // a's free only
  pool.upkeep();
  void* c = pool.allocate(std::size_t{56} << 20, fake_stream(1));  // grows, giving a's block back
  CHECK(up.frees == 1);
  pool.deallocate(c, std::size_t{56} << 20, fake_stream(1));
}
