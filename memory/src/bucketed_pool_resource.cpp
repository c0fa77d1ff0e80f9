#include "mcprice/memory/bucketed_pool_resource.hpp"

#include "mcprice/memory/memory_errors.hpp"

#include <algorithm>
#include <chrono>

namespace mcprice {

bucketed_pool_resource::bucketed_pool_resource(memory_resource& upstream, stream_ordering& ordering,
                                               bucketed_pool_options options)
    : upstream_(upstream),
      ordering_(ordering),
      classes_(options.classes),
      limit_(options.limit_bytes),
      reach_(options.limit_bytes != 0 ? 0 : options.reuse_reach),
      larger_(options.limit_bytes == 0 && options.larger_before_growth),
      larger_at_bound_(options.larger_only_at_bound),
      headroom_(options.headroom),
      untied_bytes_(options.limit_bytes != 0 ? 0 : options.untied_bytes),
      give_back_pending_(options.limit_bytes != 0 || options.give_back_pending),
      cached_(static_cast<std::size_t>(classes_.count())),
      missed_(static_cast<std::size_t>(classes_.count()), 0),
      upkeep_us_(options.limit_bytes != 0 ? 0 : options.upkeep_interval_us)
{
  stats_.classes.resize(cached_.size());
  for (int c = 0; c < classes_.count(); ++c) stats_.classes[static_cast<std::size_t>(c)].size = classes_.size_of(c);
  if (upkeep_us_ > 0) upkeep_ = std::thread([this] { upkeep_loop(); });
}

bucketed_pool_resource::~bucketed_pool_resource()
{
  stop_upkeep();
  std::lock_guard<std::mutex> lock(mutex_);
  trim_locked(0);
  for (order_token const t : unsettled_) ordering_.release(t);
}

// The hot path takes a block this stream freed, or one whose free the device is known to have
// passed, of the request's class or up to reuse_reach classes larger: no driver call and no host
// wait, under the lock alone. Only when there is none does the slow path run: it polls other
// streams' pending frees, ties the stream to one of them or grows, and every driver call it
// makes is outside the lock, so that it never holds up another thread's hot path.
void* bucketed_pool_resource::do_allocate(std::size_t bytes, stream_view s)
{
  auto const start = std::chrono::steady_clock::now();
  auto const since_start = [&] {
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
  };
  int const want = classes_.class_of(bytes);
  if (want >= 0) {
    std::lock_guard<std::mutex> lock(mutex_);
    // Larger blocks this stream may take at once are looked for here too, where the options
    // allow them before growth: the slow path's polls would only add blocks of other streams.
    int const last = larger_allowed(want, bytes) ? classes_.count() - 1 : std::min(classes_.count() - 1, want + reach_);
    for (int c = want; c <= last; ++c) {
      if (void* p = take_free(c, s)) {
        if (c > want + reach_) ++stats_.larger_reuses;
        note_live(p, bytes, c);
        record_latency(since_start(), false);
        return p;
      }
    }
  }
  void* p = allocate_slow(bytes, want, s);
  std::lock_guard<std::mutex> lock(mutex_);
  record_latency(since_start(), true);
  return p;
}

void* bucketed_pool_resource::take_free(int cls, stream_view s)
{
  auto& list = cached_[static_cast<std::size_t>(cls)];
  if (list.empty()) return nullptr;
  // A block this stream freed (stream order alone makes its reuse safe), the newest first; else
  // one whose free the device is known to have passed.
  auto it =
      std::find_if(list.rbegin(), list.rend(), [&](const cached_block& b) { return b.freed_on.value() == s.value(); });
  bool const same_stream = it != list.rend();
  if (!same_stream) {
    it = std::find_if(list.rbegin(), list.rend(), [](const cached_block& b) { return b.passed; });
    if (it == list.rend()) return nullptr;
    ++stats_.cross_stream_reuses;
  }
  cached_block const block = *it;
  forget_cached(block);
  list.erase(std::next(it).base());
  ordering_.release(block.mark);  // host bookkeeping: the mark's event goes back to the spares
  auto& c = stats_.classes[static_cast<std::size_t>(cls)];
  --c.cached_blocks;
  ++c.hits;
  return block.ptr;
}

void bucketed_pool_resource::note_live(void* p, std::size_t requested, int cls)
{
  std::size_t const size = cls >= 0 ? classes_.size_of(cls) : requested;
  std::size_t const needed = do_granted_size(requested);
  if (cls >= 0) ++stats_.classes[static_cast<std::size_t>(cls)].live_blocks;
  live_.emplace(p, live_block{requested, size, needed, cls});
  ++stats_.allocations;
  stats_.requested += requested;
  stats_.allocated += size;
  stats_.needed += needed;
  stats_.requested_peak = std::max(stats_.requested_peak, stats_.requested);
  stats_.allocated_peak = std::max(stats_.allocated_peak, stats_.allocated);
  stats_.needed_peak = std::max(stats_.needed_peak, stats_.needed);
  note_device_peak();
}

void bucketed_pool_resource::note_device_peak() noexcept
{
  stats_.device_requested_peak = std::max(stats_.device_requested_peak, stats_.requested + unpassed_requested_);
}

void bucketed_pool_resource::forget_cached(const cached_block& b) noexcept
{
  if (!b.passed) unpassed_requested_ -= b.requested;
}

// Polls the marks of a few cached blocks not yet known passed (the oldest of each class first),
// outside the lock, and notes those the device has passed: they go first to any stream, and
// back to the upstream first, with no wait.
void bucketed_pool_resource::refresh_passed() noexcept
{
  constexpr std::size_t polls = 16;
  // A block is named by its sequence number, not its mark: while the lock is not held a block
  // may be taken, its mark's event recycled, and recorded again for another block's free, which
  // a poll of the old free must not vouch for.
  std::vector<std::pair<std::uint64_t, order_token>> marks;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto const& list : cached_) {
      for (auto const& b : list) {
        if (marks.size() == polls) break;
        if (!b.passed) marks.emplace_back(b.seq, b.mark);
      }
    }
  }
  std::vector<std::uint64_t> passed;
  try {
    for (auto const& [seq, m] : marks) {
      if (ordering_.passed(m)) passed.push_back(seq);
    }
  } catch (...) {
    return;  // a failed poll: nothing is known passed
  }
  if (passed.empty()) return;
  std::sort(passed.begin(), passed.end());
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& list : cached_) note_passed(list, passed);
}

void bucketed_pool_resource::note_passed(std::vector<cached_block>& list, const std::vector<std::uint64_t>& seqs) noexcept
{
  for (auto& b : list) {
    if (!b.passed && std::binary_search(seqs.begin(), seqs.end(), b.seq)) {
      b.passed = true;
      unpassed_requested_ -= b.requested;
    }
  }
}

// Once the device has passed the frees of an earlier give-back, the upstream releases what it
// holds beyond the headroom: at the give-back itself those frees were still queued, and a
// driver pool keeps memory whose frees it has not seen happen.
void bucketed_pool_resource::settle_upstream() noexcept
{
  std::vector<order_token> marks;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (unsettled_.empty()) return;
    marks.swap(unsettled_);
  }
  std::vector<order_token> still;
  bool any = false;
  for (order_token const t : marks) {
    bool passed = false;
    try {
      passed = ordering_.passed(t);
    } catch (...) {
      passed = true;  // a failed poll: the mark is of no further use
    }
    if (passed) {
      ordering_.release(t);
      any = true;
    } else {
      still.push_back(t);
    }
  }
  std::size_t keep = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    unsettled_.insert(unsettled_.end(), still.begin(), still.end());
    keep = upstream_keep();
  }
  if (any) upstream_.release_unused(keep);
}

void bucketed_pool_resource::mark_passed_frees() noexcept
{
  constexpr std::size_t most_polls = 64;
  struct unpassed {
    std::uint64_t seq;
    order_token mark;
    cudaStream_t stream;
  };
  std::vector<unpassed> marks;
  try {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (auto const& list : cached_) {
        for (auto const& b : list) {
          if (!b.passed) marks.push_back({b.seq, b.mark, b.freed_on.value()});
        }
      }
    }
    std::sort(marks.begin(), marks.end(), [](const unpassed& a, const unpassed& b) { return a.seq < b.seq; });
    std::vector<cudaStream_t> behind;  // streams with a free the device has not passed yet
    std::vector<std::uint64_t> passed;
    std::size_t polls = 0;
    for (auto const& m : marks) {
      if (polls == most_polls) break;
      if (std::find(behind.begin(), behind.end(), m.stream) != behind.end()) continue;
      ++polls;
      if (ordering_.passed(m.mark)) passed.push_back(m.seq);
      else behind.push_back(m.stream);
    }
    if (passed.empty()) return;
    std::sort(passed.begin(), passed.end());
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& list : cached_) note_passed(list, passed);
  } catch (...) {
    // Out of host memory, or a failed poll: nothing more is known passed this round.
  }
}

void bucketed_pool_resource::upkeep_loop() noexcept
{
  std::unique_lock<std::mutex> lock(upkeep_mutex_);
  while (!stopping_) {
    upkeep_wake_.wait_for(lock, std::chrono::microseconds(upkeep_us_));
    if (stopping_) break;
    lock.unlock();
    upkeep();
    lock.lock();
  }
}

void bucketed_pool_resource::upkeep() noexcept
{
  mark_passed_frees();
  if (limit_ == 0) {
    std::vector<int> missed(missed_.size(), 0);  // sized before the lock: no allocation under it
    {
      std::lock_guard<std::mutex> lock(mutex_);
      missed.swap(missed_);
    }
    for (std::size_t c = 0; c < missed.size(); ++c) {
      if (missed[c] != 0) grow_ahead(static_cast<int>(c));
    }
  }
  settle_upstream();
}

void bucketed_pool_resource::grow_ahead(int cls) noexcept
{
  stream_view const idle{cudaStreamPerThread};
  std::size_t const size = classes_.size_of(cls);
  std::vector<returned_block> back;
  bool room = true;
  std::size_t keep = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto const& list = cached_[static_cast<std::size_t>(cls)];
    if (std::any_of(list.begin(), list.end(), [](const cached_block& b) { return b.passed; })) return;
    if (growth_needs_room(size, size)) {
      std::size_t passed_bytes = 0;
      for (std::size_t c = 0; c < cached_.size(); ++c) {
        for (auto const& b : cached_[c]) passed_bytes += b.passed ? classes_.size_of(static_cast<int>(c)) : 0;
      }
      std::size_t const target = headroom_target(size);
      if (stats_.reserved + size > target + passed_bytes) return;  // no room without waiting
      try {
        collect_room(target - size, idle, back, true);
      } catch (...) {
        room = false;  // out of host memory: what was collected goes back, and nothing grows
      }
    }
    if (room) {
      stats_.reserved += size;
      stats_.reserved_peak = std::max(stats_.reserved_peak, stats_.reserved);
    }
    keep = upstream_keep();
  }
  give_back(back, idle, keep, false);
  if (!room) return;
  void* p = nullptr;
  std::optional<order_token> mark;
  try {
    p = upstream_.allocate(size, idle);
    mark = try_record(ordering_, idle);
  } catch (...) {
    // Out of memory, or any failure: the request that missed will grow (and report) itself.
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (p == nullptr || !mark) {
    stats_.reserved -= size;
    if (p != nullptr) upstream_.deallocate(p, size, idle);
    return;
  }
  try {
    cached_[static_cast<std::size_t>(cls)].push_back({p, idle, *mark, false, ++next_seq_, 0});
  } catch (...) {
    stats_.reserved -= size;
    upstream_.deallocate(p, size, idle);
    ordering_.release(*mark);
    return;
  }
  ++stats_.classes[static_cast<std::size_t>(cls)].cached_blocks;
  ++stats_.grown_ahead;
}

void bucketed_pool_resource::stop_upkeep() noexcept
{
  if (!upkeep_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(upkeep_mutex_);
    stopping_ = true;
  }
  upkeep_wake_.notify_all();
  upkeep_.join();
}

void* bucketed_pool_resource::allocate_slow(std::size_t bytes, int cls, stream_view s)
{
  if (!upkeep_.joinable()) {  // else the upkeep thread does both, off this thread
    settle_upstream();
    refresh_passed();
  }
  if (cls >= 0) {
    if (void* p = take_larger(cls, bytes, s)) return p;
    if (void* p = take_passed_or_pending(cls, bytes, s)) return p;
  }
  std::size_t const size = cls >= 0 ? classes_.size_of(cls) : bytes;
  std::vector<returned_block> back;
  std::size_t keep = 0;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    if (cls >= 0) ++stats_.classes[static_cast<std::size_t>(cls)].misses;
    if (limit_ != 0 && stats_.reserved + size > limit_) {
      collect_room(size <= limit_ ? limit_ - size : 0, s, back);
      if (stats_.reserved + size > limit_) {
        ++stats_.failures;
        std::size_t const held = stats_.reserved;
        keep = upstream_keep();
        lock.unlock();
        give_back(back, s, keep, true);
        throw out_of_memory("bucketed", bytes, held, limit_);
      }
    }
    // Headroom: the cache may hold only a little more than the most ever live at once, so that
    // blocks of sizes no longer asked for go back instead of piling up.
    if (growth_needs_room(size, bytes)) {
      std::size_t const target = headroom_target(bytes);
      collect_room(target > size ? target - size : 0, s, back, !give_back_pending_);
    }
    stats_.reserved += size;  // held for this growth from here on, so that no other can overshoot the limit
    stats_.reserved_peak = std::max(stats_.reserved_peak, stats_.reserved);
    keep = upstream_keep();
    // Under a limit the upstream keeps nothing beyond this pool's blocks: whatever it maps for
    // this growth then stays within the limit (but for the driver's own rounding).
    if (limit_ != 0) keep = stats_.reserved - size;
  }
  give_back(back, s, keep, limit_ != 0);
  void* p = grow(size, bytes, s);
  std::lock_guard<std::mutex> lock(mutex_);
  ++stats_.upstream_grows;
  note_live(p, bytes, cls);
  return p;
}

// Before the pool grows (or ties streams), without a limit: the smallest cached block of any
// larger class that this stream may take at once. Growth maps new device memory (hundreds of
// microseconds) and, with the headroom, gives other blocks back; a larger block costs only its
// rounding, which the statistics show (internal fragmentation). Under a limit a request takes
// only its own class: the gate admitted it for that class's size.
void* bucketed_pool_resource::take_larger(int cls, std::size_t bytes, stream_view s)
{
  std::lock_guard<std::mutex> lock(mutex_);
  if (!larger_allowed(cls, bytes)) return nullptr;
  for (int c = cls + reach_ + 1; c < classes_.count(); ++c) {
    if (void* p = take_free(c, s)) {
      note_live(p, bytes, c);
      ++stats_.larger_reuses;
      return p;
    }
  }
  return nullptr;
}

// Another stream's free of the class: one the device has passed (a poll), else, where the pool
// must not grow (under its limit, or above untied_bytes), the newest pending one with this
// stream waiting on its mark (the two streams' jobs then run one after the other).
void* bucketed_pool_resource::take_passed_or_pending(int cls, std::size_t bytes, stream_view s)
{
  // The oldest frees are the likeliest passed. With the upkeep thread polling, a poll here
  // would only repeat its last round at a driver call each: none.
  std::size_t const polls = upkeep_.joinable() ? 0 : 4;
  std::vector<std::pair<std::uint64_t, order_token>> pending;  // by sequence number (refresh_passed)
  if (polls != 0) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto const& b : cached_[static_cast<std::size_t>(cls)]) {
      if (pending.size() == polls) break;
      if (b.freed_on.value() != s.value() && !b.passed) pending.emplace_back(b.seq, b.mark);
    }
  }
  std::vector<std::uint64_t> passed;
  for (auto const& [seq, m] : pending) {
    if (ordering_.passed(m)) passed.push_back(seq);
  }
  cached_block block{};
  bool tie = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto& list = cached_[static_cast<std::size_t>(cls)];
    note_passed(list, passed);  // polled in the list's order, which is the frees' (sorted)
    auto it = std::find_if(list.begin(), list.end(), [](const cached_block& b) { return b.passed; });
    if (it == list.end()) {
      // A small pool grows instead (untied_bytes): a job would otherwise wait for the end of
      // another stream's job whose scratch it reuses.
      if (list.empty() || stats_.reserved + classes_.size_of(cls) <= untied_bytes_) return nullptr;
      it = std::prev(list.end());
      tie = true;
    }
    block = *it;
    forget_cached(block);
    list.erase(it);
    if (block.freed_on.value() != s.value()) ++stats_.cross_stream_reuses;
    if (tie) {
      ++stats_.event_waits;
      // Streams ask for the class at once: the upkeep grows it a block ahead (grow_ahead), so
      // that the next such request takes one on the hot path instead of waiting on a stream.
      ++missed_[static_cast<std::size_t>(cls)];
    }
    auto& c = stats_.classes[static_cast<std::size_t>(cls)];
    --c.cached_blocks;
    ++c.hits;
    note_live(block.ptr, bytes, cls);
  }
  if (tie) ordering_.wait(s, block.mark);  // enqueues a wait on the device: the host does not wait
  ordering_.release(block.mark);
  return block.ptr;
}

std::size_t bucketed_pool_resource::headroom_target(std::size_t bytes) const noexcept
{
  auto const live_peak = static_cast<double>(std::max(stats_.needed_peak, stats_.needed + do_granted_size(bytes)));
  return static_cast<std::size_t>((1.0 + headroom_) * live_peak);
}

bool bucketed_pool_resource::growth_needs_room(std::size_t size, std::size_t bytes) const noexcept
{
  return headroom_ >= 0.0 && stats_.reserved + size > untied_bytes_ && stats_.reserved + size > headroom_target(bytes);
}

// A request may take a cached block of any larger class where the options allow it and, with
// larger_only_at_bound, only where growing would first give cached blocks back.
bool bucketed_pool_resource::larger_allowed(int cls, std::size_t bytes) const noexcept
{
  return larger_ && (!larger_at_bound_ || growth_needs_room(classes_.size_of(cls), bytes));
}

void* bucketed_pool_resource::grow(std::size_t size, std::size_t requested, stream_view s)
{
  try {
    auto const start = std::chrono::steady_clock::now();
    void* p = upstream_.allocate(size, s);
    double const us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
    std::lock_guard<std::mutex> lock(mutex_);
    growth_latency_.record(us);
    return p;
  } catch (const out_of_memory&) {
    std::vector<returned_block> back;
    std::size_t keep = 0;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ++stats_.oom_retries;
      collect_room(0, s, back);
      keep = stats_.reserved;  // the upstream is short: it keeps nothing beyond what is held
    }
    give_back(back, s, keep, true);
    try {
      return upstream_.allocate(size, s);
    } catch (const out_of_memory&) {
      std::lock_guard<std::mutex> lock(mutex_);
      stats_.reserved -= size;
      ++stats_.failures;
      throw out_of_memory("bucketed", requested, stats_.reserved, limit_);
    }
  }
}

void bucketed_pool_resource::do_deallocate(void* p, std::size_t, stream_view s) noexcept
{
  // The free's mark is recorded before the lock is taken (a driver call). Without one the block
  // goes back to the upstream below.
  std::optional<order_token> const marked = try_record(ordering_, s);
  order_token const mark = marked.value_or(0);
  std::vector<returned_block> back;
  std::size_t keep = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto const it = live_.find(p);
    if (it == live_.end()) {
      if (marked) ordering_.release(mark);
      return;  // not ours: nothing safe to do in a noexcept path
    }
    live_block const b = it->second;
    live_.erase(it);
    stats_.requested -= b.requested;
    stats_.allocated -= b.size;
    stats_.needed -= b.needed;
    if (b.cls >= 0) --stats_.classes[static_cast<std::size_t>(b.cls)].live_blocks;
    if (b.cls >= 0 && marked) {
      cached_[static_cast<std::size_t>(b.cls)].push_back({p, s, mark, false, ++next_seq_, b.requested});
      unpassed_requested_ += b.requested;
      ++stats_.classes[static_cast<std::size_t>(b.cls)].cached_blocks;
      return;
    }
    // Above the classes (or unmarked): straight back to the upstream, in stream order.
    stats_.reserved -= b.size;
    ++stats_.upstream_releases;
    back.push_back({p, b.size, 0, false, false, false});
    if (marked) ordering_.release(mark);
    keep = upstream_keep();
  }
  give_back(back, s, keep, false);
}

// What the upstream may keep in all once this pool has given blocks back: what the headroom
// lets this pool hold (at least untied_bytes, at most the limit), so that the driver keeps a
// little memory for the next growth and never more than this pool would itself.
std::size_t bucketed_pool_resource::upstream_keep() const noexcept
{
  if (headroom_ < 0.0) return limit_ != 0 ? limit_ : ~std::size_t{0};
  auto const bound = static_cast<std::size_t>((1.0 + headroom_) * static_cast<double>(stats_.needed_peak));
  std::size_t const keep = std::max(bound, untied_bytes_);
  return limit_ != 0 ? std::min(keep, limit_) : keep;
}

// Blocks the slow path gives back to the upstream, in the order of stream s (which is about to
// allocate): each pending one behind a wait on its mark. Then the upstream releases what it holds
// beyond `keep`, so that it caches no more than this pool allows itself. A driver pool releases
// only memory whose frees the device has passed, and frees queued behind running jobs have not:
// to settle, the host waits on each block's mark (those of this stream's and other streams'
// jobs, never the device) and frees it on the thread's default stream, which has nothing else
// queued, and waits for those frees before the trim.
void bucketed_pool_resource::give_back(std::vector<returned_block>& blocks, stream_view s, std::size_t keep,
                                       bool settle) noexcept
{
  if (blocks.empty()) return;
  stream_view const idle{cudaStreamPerThread};
  for (auto const& b : blocks) {
    try {
      if (settle && b.has_mark && !b.passed) ordering_.synchronize(b.mark);
      else if (b.wait) ordering_.wait(s, b.mark);
    } catch (...) {
      // A failed wait leaves nothing better to do than free: the device is in error anyway.
    }
    // A block no queued work uses goes back on the thread's own stream, which has nothing
    // queued: the upstream can then reuse it at once, for any stream, where a free queued
    // behind s's jobs would hold its memory until they end.
    upstream_.deallocate(b.ptr, b.size, settle || b.passed ? idle : s);
    if (b.has_mark) ordering_.release(b.mark);
  }
  blocks.clear();
  // Without settling, the upstream releases nothing now: the frees are still queued, and over
  // mapped pages a release here unmapped idle pages that the growth about to follow mapped
  // again (a driver call each way, milliseconds under load). settle_upstream releases once the
  // device has passed the frees.
  bool release_now = settle;
  try {
    order_token const freed = ordering_.record(settle ? idle : s);
    if (settle) {
      ordering_.synchronize(freed);
      ordering_.release(freed);
    } else {
      std::lock_guard<std::mutex> lock(mutex_);
      if (unsettled_.size() == 16) {  // a bound: the oldest is the likeliest passed already
        ordering_.release(unsettled_.front());
        unsettled_.erase(unsettled_.begin());
      }
      unsettled_.push_back(freed);
    }
  } catch (...) {
    release_now = true;  // not known to have happened: the trim releases what it can
  }
  if (release_now) upstream_.release_unused(keep);
}

void bucketed_pool_resource::trim()
{
  std::lock_guard<std::mutex> lock(mutex_);
  trim_locked(0);
}

void bucketed_pool_resource::trim_locked(std::size_t goal) noexcept
{
  ++stats_.trims;
  // Blocks whose frees the device has passed go first: no wait. Only then wait on marks, on the
  // host: the freeing stream may be gone by now, so the blocks go back on the default stream.
  for (int pass = 1; pass <= 2; ++pass) {
    for (std::size_t cls = cached_.size(); cls-- > 0 && stats_.reserved > goal;) {
      auto& list = cached_[cls];
      std::size_t const size = classes_.size_of(static_cast<int>(cls));
      for (std::size_t i = list.size(); i-- > 0 && stats_.reserved > goal;) {
        cached_block const b = list[i];
        if (pass == 1 && !b.passed && !ordering_.passed(b.mark)) continue;
        try {
          if (pass == 2) ordering_.synchronize(b.mark);
        } catch (...) {
          // A failed wait leaves nothing better to do than free: the device is in error anyway.
        }
        upstream_.deallocate(b.ptr, size, stream_view{});
        ordering_.release(b.mark);
        forget_cached(b);
        stats_.reserved -= size;
        ++stats_.upstream_releases;
        list.erase(list.begin() + static_cast<std::ptrdiff_t>(i));
        --stats_.classes[cls].cached_blocks;
      }
    }
  }
  upstream_.release_unused(goal);
}

// Takes cached blocks out of the cache until at most `goal` bytes are held or none is cached,
// for give_back: blocks the device is known to have passed, then blocks s freed (stream order
// alone), then the rest (behind an event wait of s). The upstream can then hand the same memory
// to s with no host wait anywhere.
void bucketed_pool_resource::collect_room(std::size_t goal, stream_view s, std::vector<returned_block>& out,
                                          bool passed_only)
{
  ++stats_.trims;
  // The blocks cached longest go first, whatever their class: a class whose blocks sit unused
  // is one few jobs ask for now. (Giving the smallest classes back first, newest first, gave
  // back the blocks most asked for: on a stream of mostly small jobs each growth then caused
  // the next.) Blocks the device has passed go before those this stream freed: the upstream can
  // reuse their memory at once, where s's own frees wait behind its queued jobs (a driver pool
  // reuses them in stream order; mapped pages cannot).
  if (stats_.reserved <= goal) return;
  struct candidate {
    int rank;  // 0: passed; 1: freed by s, not yet passed; 2: freed elsewhere, not yet passed
    std::uint64_t seq;
    std::size_t cls;
  };
  std::vector<candidate> order;
  for (std::size_t cls = 0; cls < cached_.size(); ++cls) {
    for (cached_block const& b : cached_[cls]) {
      int const rank = b.passed ? 0 : b.freed_on.value() == s.value() ? 1 : 2;
      if (rank == 0 || !passed_only) order.push_back({rank, b.seq, cls});
    }
  }
  std::sort(order.begin(), order.end(),
            [](const candidate& a, const candidate& b) { return a.rank != b.rank ? a.rank < b.rank : a.seq < b.seq; });
  for (auto const& c : order) {
    if (stats_.reserved <= goal) break;
    auto& list = cached_[c.cls];
    auto const it = std::find_if(list.begin(), list.end(), [&](const cached_block& b) { return b.seq == c.seq; });
    std::size_t const size = classes_.size_of(static_cast<int>(c.cls));
    bool const wait = c.rank == 2;
    out.push_back({it->ptr, size, it->mark, wait, true, it->passed});
    forget_cached(*it);
    if (wait) ++stats_.event_waits;
    stats_.reserved -= size;
    ++stats_.upstream_releases;
    list.erase(it);
    --stats_.classes[c.cls].cached_blocks;
  }
}

void bucketed_pool_resource::note_cap_rejection() noexcept
{
  std::lock_guard<std::mutex> lock(mutex_);
  ++stats_.cap_rejections;
}

std::size_t bucketed_pool_resource::do_granted_size(std::size_t bytes) const
{
  int const cls = classes_.class_of(bytes);
  return cls >= 0 ? classes_.size_of(cls) : bytes;
}

void bucketed_pool_resource::record_latency(double us, bool slow)
{
  latency_.record(us);
  if (slow) {
    slow_latency_.record(us);
    ++stats_.slow_paths;
  }
}

pool_statistics bucketed_pool_resource::statistics() const
{
  // Cached frees not known passed: with the upkeep thread their flags are at most a round old;
  // without it their marks are polled, outside the lock (a poll is a driver call, and the load
  // test samples these statistics every 2 ms while its submitters allocate).
  std::vector<std::pair<order_token, std::size_t>> unknown;
  pool_statistics s = locked_statistics(unknown);
  for (auto const& [mark, size] : unknown) {
    try {
      if (!ordering_.passed(mark)) s.pending_free += size;
    } catch (...) {
      s.pending_free += size;  // not known passed
    }
  }
  return s;
}

pool_statistics bucketed_pool_resource::locked_statistics(std::vector<std::pair<order_token, std::size_t>>& unknown) const
{
  std::lock_guard<std::mutex> lock(mutex_);
  pool_statistics s = stats_;
  s.device_requested = stats_.requested + unpassed_requested_;
  s.latency_p50_us = latency_.percentile(0.50);
  s.latency_p99_us = latency_.percentile(0.99);
  s.slow_latency_p50_us = slow_latency_.percentile(0.50);
  s.slow_latency_p99_us = slow_latency_.percentile(0.99);
  s.growth_latency_p50_us = growth_latency_.percentile(0.50);
  s.growth_latency_p99_us = growth_latency_.percentile(0.99);
  s.total_free = 0;
  s.largest_free_block = 0;
  for (std::size_t cls = 0; cls < cached_.size(); ++cls) {
    std::size_t const size = classes_.size_of(static_cast<int>(cls));
    s.total_free += size * cached_[cls].size();
    for (auto const& b : cached_[cls]) {
      if (b.passed) continue;
      if (upkeep_.joinable()) s.pending_free += size;
      else unknown.emplace_back(b.mark, size);
    }
    if (!cached_[cls].empty()) s.largest_free_block = std::max(s.largest_free_block, size);
  }
  return s;
}

}  // namespace mcprice
