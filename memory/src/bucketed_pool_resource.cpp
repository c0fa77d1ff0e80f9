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
      headroom_(options.headroom),
      untied_bytes_(options.limit_bytes != 0 ? 0 : options.untied_bytes),
      cached_(static_cast<std::size_t>(classes_.count()))
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
  auto it =
      std::find_if(list.rbegin(), list.rend(), [&](const cached_block& b) { return b.freed_on.value() == s.value(); });
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
  // A small pool grows instead (untied_bytes): a job would otherwise wait for the end of
  // another stream's job whose scratch it reuses.
  if (!take_found && stats_.reserved + classes_.size_of(cls) <= untied_bytes_) return nullptr;
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
    make_room(size <= limit_ ? limit_ - size : 0, s);
    if (stats_.reserved + size > limit_) {
      ++stats_.failures;
      throw out_of_memory("bucketed", requested, stats_.reserved, limit_);
    }
  }
  // Headroom: the cache may hold only a little more than the most ever live at once, so that
  // blocks of sizes no longer asked for go back instead of piling up.
  if (headroom_ >= 0.0 && stats_.reserved + size > untied_bytes_) {
    auto const live_peak = static_cast<double>(std::max(stats_.allocated_peak, stats_.allocated + size));
    auto const target = static_cast<std::size_t>((1.0 + headroom_) * live_peak);
    if (stats_.reserved + size > target) make_room(target > size ? target - size : 0, s);
  }
  void* p = nullptr;
  try {
    p = upstream_.allocate(size, s);
  } catch (const out_of_memory&) {
    ++stats_.oom_retries;
    make_room(0, s);
    try {
      p = upstream_.allocate(size, s);
    } catch (const out_of_memory&) {
      ++stats_.failures;
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
  // Blocks whose frees the device has passed go first: no wait. Only then wait on marks, on the
  // host: the freeing stream may be gone by now, so the blocks go back on the default stream.
  for (int pass = 1; pass <= 2; ++pass) release_cached(goal, pass, nullptr);
}

void bucketed_pool_resource::make_room(std::size_t goal, stream_view s) noexcept
{
  ++stats_.trims;
  // Back to the upstream in the order of stream s, which is about to allocate: blocks s freed
  // (stream order alone), then blocks the device has passed, then the rest behind an event wait.
  // The upstream can then hand the same memory to s with no host wait anywhere.
  for (int pass : {0, 1, 2}) release_cached(goal, pass, &s);
}

void bucketed_pool_resource::release_cached(std::size_t goal, int pass, const stream_view* s) noexcept
{
  for (std::size_t cls = cached_.size(); cls-- > 0 && stats_.reserved > goal;) {
    auto& list = cached_[cls];
    std::size_t const size = classes_.size_of(static_cast<int>(cls));
    for (std::size_t i = list.size(); i-- > 0 && stats_.reserved > goal;) {
      cached_block const& b = list[i];
      bool const own = s != nullptr && b.freed_on.value() == s->value();
      if (pass == 0 && !own) continue;
      if (pass == 1 && (own || !ordering_.passed(b.mark))) continue;
      try {
        if (pass == 2 && s == nullptr) ordering_.synchronize(b.mark);
        if (pass == 2 && s != nullptr) {
          ordering_.wait(*s, b.mark);
          ++stats_.event_waits;
        }
      } catch (...) {
        // A failed wait leaves nothing better to do than free: the device is in error anyway.
      }
      upstream_.deallocate(b.ptr, size, s != nullptr ? *s : stream_view{});
      ordering_.release(b.mark);
      stats_.reserved -= size;
      ++stats_.upstream_releases;
      list.erase(list.begin() + static_cast<std::ptrdiff_t>(i));
      --stats_.classes[cls].cached_blocks;
    }
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
