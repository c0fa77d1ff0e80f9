#pragma once
// The engine's scratch pool: requests round up to size classes; freed blocks are cached per
// class with the stream that freed them and an ordering mark recorded after the free. A block
// is reused at once on the same stream, and on another stream only after that stream waits on
// the mark. Requests above the largest class go straight to the upstream. What the cache holds
// is bounded by a headroom over the live peak, and a pool-wide limit bounds what is held from
// the upstream; an upstream failure gives the cache back and retries once before reporting
// out_of_memory.
#include "mcprice/memory/latency_histogram.hpp"
#include "mcprice/memory/memory_resource.hpp"
#include "mcprice/memory/memory_statistics.hpp"
#include "mcprice/memory/size_classes.hpp"
#include "mcprice/memory/stream_ordering.hpp"

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

namespace mcprice {

struct bucketed_pool_options {
  size_class_options classes;
  std::size_t limit_bytes{0};  // most bytes held from the upstream; 0 = no limit
  // A request with no cached block of its own class may take one up to this many classes
  // larger (2 at 4 classes per doubling: at most 41% larger) before the pool grows. Mixed sizes
  // then share blocks instead of each class caching its own. Under a limit it is 0: a job then
  // holds exactly the class sizes the scratch gate admitted it for (granted_size).
  int reuse_reach{2};
  // Without a limit, before growing, a request may take a cached block of any larger class (see
  // take_larger). Worth it where growth is dear and coarse (a driver pool maps 32 MiB chunks);
  // over mapped pages, which grow by the page, it only swells the footprint.
  bool larger_before_growth{true};
  // ... and then only when the pool is at its headroom bound, where growing would first give
  // cached blocks back: below it a request grows its own class.
  bool larger_only_at_bound{false};
  // Before growing, the pool gives cached blocks back until what it holds is at most (1 +
  // headroom) x the most ever needed live at once (in the requests' own class sizes: a bound on
  // requested bytes sat below the rounding to classes, so that at a busy moment every growth
  // gave the whole cache back); negative: cache without bound. Blocks of
  // sizes no longer asked for then go back instead of piling up as fragmentation. (It bounds
  // the footprint against what jobs asked for, so the rounding to classes, and larger blocks
  // serving smaller requests, come out of it.)
  double headroom{0.15};
  // A block another stream freed, whose free the device has not yet passed, is reused with the
  // allocating stream waiting on that free: least memory, but the two streams' jobs then run one
  // after the other on the GPU (one's ramp cannot fill the other's tail). While the pool holds
  // at most this many bytes it grows instead (the headroom does not apply below it): a few
  // jobs' worth of concurrency bought with memory that does not matter. 0: always wait. Under a
  // limit the pool always waits rather than fail.
  std::size_t untied_bytes{0};
  // A thread of the pool's own that, this often, polls the marks of cached frees (each stream's
  // oldest first) so that the hot path finds other streams' blocks known passed and free to
  // take, grows a block ahead for each class that missed since its last round (giving back the
  // blocks cached longest to stay within the headroom), and lets the upstream release what
  // give-backs left once their frees have happened: all off the allocating threads, whose slow
  // path otherwise does it (measured on the H200 load test: a fifth of allocations took the slow
  // path, at 44 us a time). Without a limit only. 0: no thread.
  int upkeep_interval_us{0};
  // Without a limit, the headroom gives back cached blocks whose frees the device has not yet
  // passed, behind a wait of the growing stream. A driver pool reuses such a block for that
  // stream at once (stream order); mapped pages hold its pages until the free passes. false:
  // passed blocks only, so the pool may stay above its bound until they pass. Replayed, false
  // left the hot path four times less often; on the H200 it held more (1.35-1.93x the need on
  // the device's timeline, against 1.22-1.30x) for as many slow paths (docs/memory.md).
  bool give_back_pending{true};
};

// The pool's settings as the engine builds them (gpu_context.cpp), before its limit and classes;
// the allocation benchmark and the profile replay start from the same.
[[nodiscard]] inline bucketed_pool_options engine_pool_options()
{
  bucketed_pool_options o;
  // A pipelined book's jobs (a few MiB of sums each) stay independent across streams.
  o.untied_bytes = std::size_t{32} << 20;
  // Other streams' frees are polled off the submitting threads, so that their blocks are taken
  // on the hot path; a job's scratch lives for a millisecond or more. Standard load profile, H200
  // (allocate() p50 / p99, slow paths): 25 us 0.51-0.58 / 16-19 us, 10-15%; 100 us 0.63-0.66 /
  // 19-20 us, 9-10%; 400 us 0.79-0.86 / 24-25 us, 23-27% (docs/benchmarks.md).
  o.upkeep_interval_us = 100;
  return o;
}

// The pool's settings over mapped pages (mapped_page_resource), as the engine and the
// allocation benchmark run it. The cache may hold as much again as the most jobs needed at
// once: a job's frees are queued behind its kernels, so other streams take its blocks only
// after the device passes them, and a tighter cache made streams wait on each other or grow
// for a fifth of the load test's allocations (5% held 1.7-2.0x the peak request with an
// allocation p99 of 2 ms on the H200; docs/memory.md has the replayed trade-off). A request
// takes a larger cached block only where growing would first give blocks back (at the bound),
// since a growth may map pages at tens of microseconds each.
[[nodiscard]] inline bucketed_pool_options over_mapped_pages(bucketed_pool_options o)
{
  o.headroom = 1.0;
  o.larger_before_growth = true;
  o.larger_only_at_bound = true;
  return o;
}

// The pool's limit over pages held to `limit` (at least one page): a sixteenth less, and at
// least 8 pages less, but never below half, and never above the limit itself. The pool counts
// blocks in their classes' bytes; blocks of different sizes share pages only in part, so the
// pages behind a pool at its own limit may exceed it by a few pages.
[[nodiscard]] inline std::size_t pool_limit_under_pages(std::size_t limit, std::size_t page)
{
  std::size_t const pages_limit = limit < page ? page : limit;
  std::size_t const slack = std::min(pages_limit / 2, std::max(pages_limit / 16, 8 * page));
  return std::min(limit, pages_limit - slack);
}

class bucketed_pool_resource final : public memory_resource {
 public:
  bucketed_pool_resource(memory_resource& upstream, stream_ordering& ordering, bucketed_pool_options options = {});
  ~bucketed_pool_resource() override;  // returns every cached block to the upstream

  void trim();  // returns every cached block to the upstream
  // One round of what the upkeep thread does (upkeep_interval_us): notes which cached frees the
  // device has passed and lets the upstream release what earlier give-backs left. Tests and
  // callers without the thread may run it themselves; it never waits on the device.
  void upkeep() noexcept;
  [[nodiscard]] pool_statistics statistics() const;
  void note_cap_rejection() noexcept;
  [[nodiscard]] const size_classes& classes() const noexcept { return classes_; }

 private:
  struct cached_block {
    void* ptr;
    stream_view freed_on;
    order_token mark;
    bool passed;        // the device is known to have passed the free: any stream may take it at once
    std::uint64_t seq;  // which free this is (a mark's event is recycled; the number is not)
    std::size_t requested;  // what the freed allocation asked for (0 for a block grown ahead)
  };
  // A cached block on its way back to the upstream (the slow path frees it outside the lock).
  struct returned_block {
    void* ptr;
    std::size_t size;
    order_token mark;
    bool wait;      // the allocating stream waits on the mark first
    bool has_mark;  // the mark is released after the free
    bool passed;    // the device is known to have passed the free: nothing to wait for
  };
  struct live_block {
    std::size_t requested;
    std::size_t size;    // the class size, or the request for blocks above the classes
    std::size_t needed;  // the size of the request's own class (size, but for a larger block)
    int cls;             // -1: above the classes, straight from the upstream
  };

  void* do_allocate(std::size_t bytes, stream_view s) override;
  void do_deallocate(void* p, std::size_t bytes, stream_view s) noexcept override;
  [[nodiscard]] std::string do_name() const override { return "bucketed"; }
  [[nodiscard]] std::size_t do_granted_size(std::size_t bytes) const override;

  // The hot path: a block of class cls that s may take at once, or nullptr (no driver call).
  void* take_free(int cls, stream_view s);
  void note_live(void* p, std::size_t requested, int cls);
  // The slow path, without the lock held across its driver calls.
  void* allocate_slow(std::size_t bytes, int cls, stream_view s);
  void refresh_passed() noexcept;
  // With the lock held: the blocks of `list` named by `seqs` (sorted sequence numbers, polled
  // outside the lock) are known passed.
  void note_passed(std::vector<cached_block>& list, const std::vector<std::uint64_t>& seqs) noexcept;
  // A cached block leaves the cache (taken, or given back): its free, if not known passed, no
  // longer counts as in use on the device. Under the lock.
  void forget_cached(const cached_block& b) noexcept;
  void note_device_peak() noexcept;
  void settle_upstream() noexcept;
  // The upkeep thread's round: every stream's cached frees polled oldest first, up to the first
  // the device has not passed (a stream passes its marks in order).
  void mark_passed_frees() noexcept;
  // The upkeep's growth ahead: a block of class cls, cached as freed on the upkeep thread's own
  // stream, where no block of the class is known passed and the headroom leaves room once
  // blocks the device has passed are given back.
  void grow_ahead(int cls) noexcept;
  void upkeep_loop() noexcept;
  void stop_upkeep() noexcept;
  void* take_larger(int cls, std::size_t bytes, stream_view s);
  void* take_passed_or_pending(int cls, std::size_t bytes, stream_view s);
  void* grow(std::size_t size, std::size_t requested, stream_view s);
  // With the lock held: the headroom's bound on what the pool holds, for a request of `bytes`;
  // whether growing by `size` would first give cached blocks back; whether a request of class
  // cls may take a larger block.
  [[nodiscard]] std::size_t headroom_target(std::size_t bytes) const noexcept;
  [[nodiscard]] bool growth_needs_room(std::size_t size, std::size_t bytes) const noexcept;
  [[nodiscard]] bool larger_allowed(int cls, std::size_t bytes) const noexcept;
  // Return cached blocks to the upstream until at most `goal` bytes are held or none is cached:
  // trim_locked waits on the host and frees on the default stream; collect_room takes them out
  // for give_back, which frees them in the order of stream s (about to allocate) with no host
  // wait.
  void trim_locked(std::size_t goal) noexcept;
  // passed_only: blocks the device is known to have passed, and no others.
  void collect_room(std::size_t goal, stream_view s, std::vector<returned_block>& out, bool passed_only = false);
  // settle: the host waits for each block's free and the upstream is trimmed only once the frees
  // have happened, so that it keeps nothing given back (under a limit, and after out of memory).
  void give_back(std::vector<returned_block>& blocks, stream_view s, std::size_t keep, bool settle) noexcept;
  [[nodiscard]] std::size_t upstream_keep() const noexcept;
  void record_latency(double us, bool slow);
  // The statistics under the lock, with the marks of cached frees still to poll (statistics()
  // polls them after the lock is released).
  [[nodiscard]] pool_statistics locked_statistics(std::vector<std::pair<order_token, std::size_t>>& unknown) const;

  memory_resource& upstream_;
  stream_ordering& ordering_;
  size_classes classes_;
  std::size_t limit_;
  int reach_;
  bool larger_;
  bool larger_at_bound_;
  double headroom_;
  std::size_t untied_bytes_;  // 0 under a limit
  bool give_back_pending_;

  mutable std::mutex mutex_;
  std::vector<std::vector<cached_block>> cached_;
  std::unordered_map<void*, live_block> live_;
  std::uint64_t next_seq_{0};
  std::size_t unpassed_requested_{0};  // requested bytes of cached blocks whose frees are not known passed
  // Marks after frees given back in stream order: once the device passes one, the upstream can
  // release what those frees returned, and a later slow path trims it (refresh_passed).
  std::vector<order_token> unsettled_;
  std::vector<int> missed_;  // slow paths per class since the upkeep's last round
  pool_statistics stats_;
  latency_histogram latency_;
  latency_histogram slow_latency_;    // allocations that took the slow path
  latency_histogram growth_latency_;  // the upstream's allocate() in a growth

  int upkeep_us_;
  std::mutex upkeep_mutex_;
  std::condition_variable upkeep_wake_;
  bool stopping_{false};
  std::thread upkeep_;  // last: started once everything above is built
};

}  // namespace mcprice
