#include "mcprice/memory/bucketed_pool_resource.hpp"

#include "mcprice/memory/memory_errors.hpp"

#include <algorithm>
#include <chrono>

namespace mcprice {

bucketed_pool_resource::bucketed_pool_resource(memory_resource& upstream, stream_ordering& ordering,
                                               bucketed_pool_options options)
    : upstream_(upstream), ordering_(ordering), classes_(options.classes), limit_(options.limit_bytes),
      reach_(options.limit_bytes != 0 ? 0 : options.reuse_reach), cached_(static_cast<std::size_t>(classes_.count()))
{
  stats_.classes.resize(cached_.size());
  for (int c = 0; c < classes_.count(); ++c) stats_.classes[static_cast<std::size_t>(c)].size = classes_.size_of(c);
}

bucketed_pool_resource::~bucketed_pool_resource()
{
  std::lock_guard<std::mutex> lock(mutex_);
  trim_locked(0);
}

void* bucketed_pool_resource::do_allocate(std::size_t bytes, stream_view s)
{
  auto const start = std::chrono::steady_clock::now();
  std::lock_guard<std::mutex> lock(mutex_);
  int cls = classes_.class_of(bytes);
  void* p = nullptr;
  if (cls >= 0) {
    int const last = std::min(classes_.count() - 1, cls + reach_);
    for (int c = cls; c <= last && p == nullptr; ++c) {
      p = take_cached(c, s);
      if (p != nullptr) cls = c;
    }
    if (p == nullptr) ++stats_.classes[static_cast<std::size_t>(cls)].misses;
  }
  std::size_t const size = cls >= 0 ? classes_.size_of(cls) : bytes;
  if (p == nullptr) p = grow(size, bytes, s);
  if (cls >= 0) ++stats_.classes[static_cast<std::size_t>(cls)].live_blocks;
  live_.emplace(p, live_block{bytes, size, cls});
  ++stats_.allocations;
  stats_.requested += bytes;
  stats_.allocated += size;
  stats_.requested_peak = std::max(stats_.requested_peak, stats_.requested);
  stats_.allocated_peak = std::max(stats_.allocated_peak, stats_.allocated);
  record_latency(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
  return p;
}

void* bucketed_pool_resource::take_cached(int cls, stream_view s)
{
  auto& list = cached_[static_cast<std::size_t>(cls)];
  auto& c = stats_.classes[static_cast<std::size_t>(cls)];
  if (list.empty()) return nullptr;
  // Prefer a block this stream freed: stream order alone makes its reuse safe. Next, one whose
  // free the device has already passed (a poll of its mark): safe with no wait. Only then make
  // this stream wait on another's mark, which would tie the two streams' jobs together.
  auto it = std::find_if(list.rbegin(), list.rend(), [&](const cached_block& b) { return b.freed_on.value() == s.value(); });
  bool const same_stream = it != list.rend();
  bool passed = false;
  if (!same_stream) {
    constexpr int polls = 4;  // the newest frees are the likeliest still pending: look from the front
    int n = 0;
    for (auto f = list.begin(); f != list.end() && n < polls && !passed; ++f, ++n) {
      if (ordering_.passed(f->mark)) {
        passed = true;
        it = std::make_reverse_iterator(std::next(f));
      }
    }
  }
  bool const take_found = same_stream || passed;
  cached_block const block = take_found ? *it : list.back();
  if (take_found) list.erase(std::next(it).base());
  else list.pop_back();
  if (!same_stream) ++stats_.cross_stream_reuses;
  if (!take_found) {
    ordering_.wait(s, block.mark);
    ++stats_.event_waits;
  }
  ordering_.release(block.mark);
  --c.cached_blocks;
  ++c.hits;
  return block.ptr;
}

void* bucketed_pool_resource::grow(std::size_t size, std::size_t requested, stream_view s)
{
  if (limit_ != 0 && stats_.reserved + size > limit_) {
    trim_locked(size <= limit_ ? limit_ - size : 0);
    if (stats_.reserved + size > limit_) {
      throw out_of_memory("bucketed", requested, stats_.reserved, limit_);
    }
  }
  void* p = nullptr;
  try {
    p = upstream_.allocate(size, s);
  } catch (const out_of_memory&) {
    ++stats_.oom_retries;
    trim_locked(0);
    try {
      p = upstream_.allocate(size, s);
    } catch (const out_of_memory&) {
      throw out_of_memory("bucketed", requested, stats_.reserved, limit_);
    }
  }
  ++stats_.upstream_grows;
  stats_.reserved += size;
  stats_.reserved_peak = std::max(stats_.reserved_peak, stats_.reserved);
  return p;
}

void bucketed_pool_resource::do_deallocate(void* p, std::size_t, stream_view s) noexcept
{
  std::lock_guard<std::mutex> lock(mutex_);
  auto const it = live_.find(p);
  if (it == live_.end()) return;  // not ours: nothing safe to do in a noexcept path
  live_block const b = it->second;
  live_.erase(it);
  stats_.requested -= b.requested;
  stats_.allocated -= b.size;
  if (b.cls < 0) {
    upstream_.deallocate(p, b.size, s);
    stats_.reserved -= b.size;
    ++stats_.upstream_releases;
    return;
  }
  auto& c = stats_.classes[static_cast<std::size_t>(b.cls)];
  --c.live_blocks;
  try {
    cached_[static_cast<std::size_t>(b.cls)].push_back({p, s, ordering_.record(s)});
    ++c.cached_blocks;
  } catch (...) {
    // Could not mark the free (a CUDA failure): give the block back in stream order instead.
    upstream_.deallocate(p, b.size, s);
    stats_.reserved -= b.size;
    ++stats_.upstream_releases;
  }
}

void bucketed_pool_resource::trim()
{
  std::lock_guard<std::mutex> lock(mutex_);
  trim_locked(0);
}

void bucketed_pool_resource::trim_locked(std::size_t goal) noexcept
{
  ++stats_.trims;
  // Blocks whose frees the device has passed go first: no wait. Only then wait on marks.
  for (bool const wait : {false, true}) {
    for (std::size_t cls = cached_.size(); cls-- > 0 && stats_.reserved > goal;) {
      auto& list = cached_[cls];
      std::size_t const size = classes_.size_of(static_cast<int>(cls));
      for (std::size_t i = list.size(); i-- > 0 && stats_.reserved > goal;) {
        if (!wait && !ordering_.passed(list[i].mark)) continue;
        release_cached(list[i], size, wait);
        list.erase(list.begin() + static_cast<std::ptrdiff_t>(i));
        --stats_.classes[cls].cached_blocks;
      }
    }
  }
}

void bucketed_pool_resource::release_cached(const cached_block& b, std::size_t size, bool wait) noexcept
{
  // The freeing stream may be gone by now: wait for its mark on the host, then free on the
  // default stream. Trims are rare (the limit, out of memory, an explicit trim, the pool's end).
  if (wait) {
    try {
      ordering_.synchronize(b.mark);
    } catch (...) {
      // A failed wait leaves nothing better to do than free: the device is in error anyway.
    }
  }
  upstream_.deallocate(b.ptr, size, stream_view{});
  ordering_.release(b.mark);
  stats_.reserved -= size;
  ++stats_.upstream_releases;
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

void bucketed_pool_resource::record_latency(double us) { latency_.record(us); }

pool_statistics bucketed_pool_resource::statistics() const
{
  std::lock_guard<std::mutex> lock(mutex_);
  pool_statistics s = stats_;
  s.latency_p50_us = latency_.percentile(0.50);
  s.latency_p99_us = latency_.percentile(0.99);
  s.total_free = 0;
  s.largest_free_block = 0;
  for (std::size_t cls = 0; cls < cached_.size(); ++cls) {
    std::size_t const size = classes_.size_of(static_cast<int>(cls));
    s.total_free += size * cached_[cls].size();
    for (auto const& b : cached_[cls]) {
      if (!ordering_.passed(b.mark)) s.pending_free += size;
    }
    if (!cached_[cls].empty()) s.largest_free_block = std::max(s.largest_free_block, size);
  }
  return s;
}

}  // namespace mcprice
