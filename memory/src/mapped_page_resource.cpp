#include "mcprice/memory/mapped_page_resource.hpp"

#include "address_arena.hpp"
#include "mcprice/memory/memory_errors.hpp"

#include <algorithm>

namespace mcprice {
namespace {

// Blocks keep the 256-byte alignment cudaMalloc gives.
constexpr std::size_t block_granule = 256;

std::size_t round_up(std::size_t bytes, std::size_t to) { return (bytes + to - 1) / to * to; }

}  // namespace

mapped_page_resource::mapped_page_resource(page_driver& driver, stream_ordering& ordering, mapped_page_options o)
    : driver_(driver),
      ordering_(ordering),
      // Device memory comes a page at a time: a limit below one page holds one page.
      limit_(o.limit_bytes == 0 ? 0 : std::max(o.limit_bytes, driver.page_size())),
      range_bytes_(round_up(o.range_bytes, driver.page_size())),
      page_(driver.page_size()),
      idle_release_(std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>(o.idle_release_s))),
      move_idle_(o.move_idle_pages)
{
  counts_.page_size = page_;
}

mapped_page_resource::~mapped_page_resource()
{
  std::lock_guard<std::mutex> lock(mutex_);
  settle_pending();
  // Blocks still live belong to owners that outlived the engine's scratch: their pages go back
  // all the same, so that nothing stays held from the driver.
  for (auto const& [index, entry] : pages_) {
    driver_.unmap(base_ + index * page_);
    driver_.release_page(entry.page);
  }
  for (page_handle const p : spare_) driver_.release_page(p);
  if (arena_) driver_.unreserve(base_, range_bytes_);
}

// What a block takes of the range: whole pages from a page up.
std::size_t mapped_page_resource::do_granted_size(std::size_t bytes) const
{
  return placed_size(round_up(bytes, block_granule));
}

// The lowest free place that fits, its pages mapped where no other block holds them. Driver
// calls run under the lock: this resource serves the bucketed pool's slow path, never its hot one.
void* mapped_page_resource::do_allocate(std::size_t bytes, stream_view)
{
  std::size_t const size = round_up(std::max<std::size_t>(bytes, 1), block_granule);
  std::lock_guard<std::mutex> lock(mutex_);
  reap();
  // At the limit the host takes pending frees back, oldest first and only until the block's
  // pages are within reach, so that the block can take their places and pages.
  if (limit_ != 0) {
    std::size_t const pages = round_up(size, page_) / page_;
    while (pages_within_limit() < pages && settle_oldest()) {
    }
  }
  if (!arena_) reserve_range();
  std::size_t const place = placed_size(size);
  auto const offset = arena_for(size).take(place);
  if (!offset) throw out_of_memory("pages (addresses)", bytes, held(), limit_);
  try {
    map_block(*offset, size);
  } catch (...) {
    arena_for(size).give(*offset, place);
    throw;
  }
  device_address const at = base_ + *offset;
  live_.emplace(at, size);
  counts_.live_bytes += size;
  return reinterpret_cast<void*>(static_cast<std::uintptr_t>(at));
}

// Blocks of a page or more start on a page and are placed in whole pages, in the upper half of
// the range: the gaps between them are whole pages, which cost nothing once unmapped. Smaller
// blocks pack together in the lower half, where a gap costs at most the pages it shares.
void mapped_page_resource::reserve_range()
{
  base_ = driver_.reserve(range_bytes_);
  std::size_t const half = range_bytes_ / 2 / page_ * page_;
  arena_ = std::make_unique<detail::address_arena>(half);
  large_ = std::make_unique<detail::address_arena>(range_bytes_ - half, half);
}

std::size_t mapped_page_resource::placed_size(std::size_t size) const noexcept
{
  return size < page_ ? size : round_up(size, page_);
}

detail::address_arena& mapped_page_resource::arena_for(std::size_t size) noexcept
{
  return size < page_ ? *arena_ : *large_;
}

// Maps the pages the block touches that no other block holds (an idle page, still mapped, is
// taken back with no driver call), then lets the device at each run of new ones with one call
// (granting access costs more than mapping; a 64 MiB block is one run).
void mapped_page_resource::map_block(std::size_t offset, std::size_t size)
{
  std::size_t const first = offset / page_;
  std::size_t const end = (offset + size + page_ - 1) / page_;
  std::vector<std::pair<std::size_t, std::size_t>> fresh;  // runs of pages mapped here: [from, to)
  std::size_t p = first;
  try {
    for (; p < end; ++p) {
      auto const found = pages_.find(p);
      if (found != pages_.end()) {
        if (found->second.refs++ == 0) idle_.erase(p);
        continue;
      }
      page_handle const page = next_page(p);
      try {
        driver_.map(base_ + p * page_, page);
      } catch (...) {
        spare_.push_back(page);
        throw;
      }
      pages_.emplace(p, page_entry{page, 1});
      ++counts_.maps;
      note_held();
      if (!fresh.empty() && fresh.back().second == p) ++fresh.back().second;
      else fresh.emplace_back(p, p + 1);
    }
    for (auto const& [from, to] : fresh) driver_.allow_access(base_ + from * page_, (to - from) * page_);
  } catch (...) {
    // Pages mapped here may lack access: they go back unmapped, never idle.
    for (auto const& [from, to] : fresh) {
      for (std::size_t q = from; q < to; ++q) evict(q);
    }
    unref_pages(first, p);
    throw;
  }
}

// A spare page, else a new one within the limit. At the limit an idle page elsewhere is
// unmapped for this place; failing that, the host waits for the oldest pending free (its own
// mark, never the device) and looks again, one free at a time, so that a request waits only as
// long as its page needs. Only with nothing pending is the request out of memory.
page_handle mapped_page_resource::next_page(std::size_t for_page)
{
  for (;;) {
    bool const at_limit = limit_ != 0 && held() + page_ > limit_;
    if (spare_.empty() && (move_idle_ || at_limit)) {
      // An idle page elsewhere is moved here (move_idle_pages). The highest goes first: places
      // are taken lowest first, so it is the least likely to be wanted where it is.
      auto const other =
          std::find_if(idle_.rbegin(), idle_.rend(), [&](const auto& q) { return q.first != for_page; });
      if (other != idle_.rend()) evict(other->first);
    }
    if (!spare_.empty()) {
      page_handle const p = spare_.back();
      spare_.pop_back();
      return p;
    }
    if (!at_limit) break;
    if (!settle_oldest()) throw out_of_memory("pages", page_, held(), limit_);
  }
  page_handle const p = driver_.create_page();
  ++counts_.pages_created;
  return p;
}

// Unmaps page q (idle, or mapped just now) and keeps it as a spare.
void mapped_page_resource::evict(std::size_t q) noexcept
{
  auto const it = pages_.find(q);
  if (it == pages_.end()) return;
  driver_.unmap(base_ + q * page_);
  spare_.push_back(it->second.page);
  pages_.erase(it);
  idle_.erase(q);
}

// A page no block touches any more stays mapped, idle, for the next block placed there: the
// lowest places are taken first, so most growths find their pages mapped. Idle pages count as
// held; release_unused unmaps them.
void mapped_page_resource::unref_pages(std::size_t first, std::size_t end) noexcept
{
  for (std::size_t p = first; p < end; ++p) {
    auto const it = pages_.find(p);
    if (it == pages_.end() || --it->second.refs != 0) continue;
    try {
      idle_.emplace(p, clock::now());
    } catch (...) {
      evict(p);  // out of host memory for the set: unmapped at once instead
    }
  }
}

void mapped_page_resource::do_deallocate(void* p, std::size_t, stream_view s) noexcept
{
  auto const at = static_cast<device_address>(reinterpret_cast<std::uintptr_t>(p));
  std::optional<order_token> const mark = try_record(ordering_, s);  // else unmapped at once
  std::lock_guard<std::mutex> lock(mutex_);
  auto const it = live_.find(at);
  if (it == live_.end()) {
    if (mark) ordering_.release(*mark);
    return;  // not ours: nothing safe to do in a noexcept path
  }
  std::size_t const size = it->second;
  live_.erase(it);
  counts_.live_bytes -= size;
  if (mark) {
    pending_.push_back({at, size, *mark, s.value()});
  } else {
    release_block(at, size);
  }
}

void mapped_page_resource::release_block(device_address at, std::size_t size) noexcept
{
  std::size_t const offset = at - base_;
  unref_pages(offset / page_, (offset + size + page_ - 1) / page_);
  try {
    arena_for(size).give(offset, placed_size(size));
  } catch (...) {
    // Out of host memory for the extent: the place is lost, its pages are not.
  }
}

void mapped_page_resource::reap(std::size_t most_polls) noexcept
{
  std::vector<cudaStream_t> behind;  // streams with a free the device has not passed
  std::size_t polls = 0;
  auto const keep = std::remove_if(pending_.begin(), pending_.end(), [&](const pending_free& f) {
    if (polls == most_polls || std::find(behind.begin(), behind.end(), f.stream) != behind.end()) return false;
    ++polls;
    bool passed = true;
    try {
      passed = ordering_.passed(f.mark);
      if (!passed) behind.push_back(f.stream);
    } catch (...) {
      // A failed poll (or no host memory for the list): the device is in error, or the free is
      // taken as passed, which an erroring device cannot contradict.
    }
    if (!passed) return false;
    release_block(f.at, f.size);
    ordering_.release(f.mark);
    return true;
  });
  pending_.erase(keep, pending_.end());
}

bool mapped_page_resource::settle_pending() noexcept
{
  bool const any = !pending_.empty();
  while (settle_oldest()) {
  }
  return any;
}

// The frees the device has passed go back; if none had, the host waits for the oldest pending
// one. False when nothing was pending.
bool mapped_page_resource::settle_oldest() noexcept
{
  std::size_t const before = pending_.size();
  reap(~std::size_t{0});
  if (pending_.size() != before) return true;
  if (pending_.empty()) return false;
  pending_free const f = pending_.front();
  try {
    ordering_.synchronize(f.mark);  // the host waits for this free only, never the device
  } catch (...) {
    // The device is in error: nothing queued will run.
  }
  pending_.erase(pending_.begin());
  ++counts_.pending_waits;
  release_block(f.at, f.size);
  ordering_.release(f.mark);
  return true;
}

void mapped_page_resource::do_release_unused(std::size_t keep) noexcept
{
  std::lock_guard<std::mutex> lock(mutex_);
  reap(~std::size_t{0});  // every free passed goes back: the caller asked for a release
  release_spares(keep);
}

// Spares go back first, then idle pages from the top of the range down (the lowest are the
// likeliest to be taken again).
void mapped_page_resource::release_spares(std::size_t keep) noexcept
{
  // The idle pages that may go, from the top of the range down: those idle long enough.
  std::vector<std::size_t> old_idle;
  try {
    auto const idle_before = clock::now() - idle_release_;
    for (auto it = idle_.rbegin(); it != idle_.rend() && held() - old_idle.size() * page_ > keep; ++it) {
      if (it->second <= idle_before) old_idle.push_back(it->first);
    }
  } catch (...) {
    // Out of host memory for the list: spares alone go back.
  }
  std::size_t next = 0;
  while (held() > keep) {
    if (spare_.empty()) {
      if (next == old_idle.size()) break;
      evict(old_idle[next++]);
    }
    driver_.release_page(spare_.back());
    spare_.pop_back();
    ++counts_.pages_released;
  }
}

// Pages a block could have now without a wait: new ones under the limit, spares and idle ones.
std::size_t mapped_page_resource::pages_within_limit() const noexcept
{
  std::size_t const fresh = limit_ > held() ? (limit_ - held()) / page_ : 0;
  return fresh + spare_.size() + idle_.size();
}

void mapped_page_resource::note_held() noexcept
{
  counts_.held_peak = std::max(counts_.held_peak, held());
  counts_.mapped_peak = std::max(counts_.mapped_peak, pages_.size() * page_);
}

mapped_page_usage mapped_page_resource::usage() const
{
  std::lock_guard<std::mutex> lock(mutex_);
  mapped_page_usage u = counts_;
  u.held = held();
  u.mapped = pages_.size() * page_;
  u.idle = idle_.size() * page_;
  u.spare = spare_.size() * page_;
  u.pending_frees = pending_.size();
  u.free_extents = arena_ ? arena_->extents() + large_->extents() : 0;
  return u;
}

}  // namespace mcprice
