#pragma once
// A host stand-in for the device so the pool's bookkeeping is tested without a GPU: an upstream
// that hands out distinct fake addresses (and can be told to fail), an ordering that logs which
// stream waited on which free, and virtual memory management with pages and address ranges.
#include "catch.hpp"
#include "mcprice/memory/memory_errors.hpp"
#include "mcprice/memory/memory_resource.hpp"
#include "mcprice/memory/page_driver.hpp"
#include "mcprice/memory/stream_ordering.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <utility>
#include <vector>

namespace mcprice::testing {

class fake_upstream final : public memory_resource {
 public:
  std::size_t capacity{~std::size_t{0}};  // allocations beyond this many live bytes fail
  std::size_t live_bytes{0};
  std::size_t allocations{0};
  std::size_t frees{0};
  std::size_t unused_releases{0};  // release_unused() calls: what it was given back went back to the device
  std::size_t last_keep{0};        // and the bytes the last one allowed the upstream to keep
  std::set<std::uintptr_t> live;

 private:
  // The pool calls its upstream and ordering from several threads at once (concurrency tests).
  void* do_allocate(std::size_t bytes, stream_view) override
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (live_bytes + bytes > capacity) throw out_of_memory("fake", bytes, live_bytes, capacity);
    next_ += (bytes + 4095) / 4096 * 4096 + 4096;
    live.insert(next_);
    live_bytes += bytes;
    ++allocations;
    return reinterpret_cast<void*>(next_);
  }
  void do_deallocate(void* p, std::size_t bytes, stream_view) noexcept override
  {
    std::lock_guard<std::mutex> lock(mutex_);
    live.erase(reinterpret_cast<std::uintptr_t>(p));
    live_bytes -= bytes;
    ++frees;
  }
  [[nodiscard]] std::string do_name() const override { return "fake"; }
  void do_release_unused(std::size_t keep) noexcept override
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++unused_releases;
    last_keep = keep;
  }
  std::uintptr_t next_{1 << 20};
  std::mutex mutex_;
};

class fake_ordering final : public stream_ordering {
 public:
  std::vector<std::pair<cudaStream_t, order_token>> waits;  // (waiting stream, mark)
  std::size_t recorded{0};
  std::size_t released{0};
  std::size_t synchronized{0};
  std::size_t polls{0};                   // passed() calls: each a driver call on the device
  std::vector<order_token> passed_marks;  // marks the fake device has passed
  // Released marks are recorded again, as the CUDA ordering recycles its events.
  bool recycle{false};
  std::vector<order_token> spare;
  order_token last{0};  // the mark recorded last
  // Called by a poll before its answer (what another thread does meanwhile); a set answer wins.
  std::function<std::optional<bool>(order_token)> on_poll;

  order_token record(stream_view) override
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++recorded;
    if (recycle && !spare.empty()) {
      last = spare.back();
      spare.pop_back();
    } else {
      last = recorded;
    }
    return last;
  }
  void wait(stream_view waiter, order_token t) override
  {
    std::lock_guard<std::mutex> lock(mutex_);
    waits.emplace_back(waiter.value(), t);
  }
  void release(order_token t) noexcept override
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++released;
    if (recycle) spare.push_back(t);
  }
  void synchronize(order_token) override
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++synchronized;
  }
  bool passed(order_token t) override
  {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ++polls;
    }
    if (on_poll) {  // unlocked: it may call back into the pool, and so into this ordering
      if (auto const answer = on_poll(t)) return *answer;
    }
    std::lock_guard<std::mutex> lock(mutex_);
    return std::find(passed_marks.begin(), passed_marks.end(), t) != passed_marks.end();
  }

 private:
  std::mutex mutex_;
};

// Virtual memory management on a fake device: pages of page_size bytes (at most `capacity` of
// them), ranges of addresses, and a map of which page sits where, checked for double mappings.
class fake_page_driver final : public page_driver {
 public:
  std::size_t page{std::size_t{2} << 20};
  std::size_t capacity{~std::size_t{0}};  // pages the device has
  std::size_t fail_map_after{~std::size_t{0}};  // maps that succeed before one fails
  std::size_t created{0};
  std::size_t released{0};
  bool fail_access{false};
  std::size_t maps{0};
  std::size_t access_grants{0};  // runs of pages the device was let at
  std::size_t reserved_ranges{0};
  std::map<device_address, page_handle> mapped;

  [[nodiscard]] std::size_t page_size() const noexcept override { return page; }
  device_address reserve(std::size_t bytes) override
  {
    REQUIRE(bytes % page == 0);
    device_address const base = next_;
    next_ += bytes + page;  // a gap, so that ranges never touch
    ++reserved_ranges;
    return base;
  }
  void unreserve(device_address, std::size_t) noexcept override { --reserved_ranges; }
  page_handle create_page() override
  {
    if (created - released >= capacity) throw out_of_memory("fake pages", page, (created - released) * page, 0);
    return ++created;
  }
  void release_page(page_handle) noexcept override { ++released; }
  void map(device_address at, page_handle h) override
  {
    REQUIRE(at % page == 0);
    if (maps == fail_map_after) throw std::runtime_error("fake map failure");
    REQUIRE(mapped.emplace(at, h).second);
    ++maps;
  }
  void allow_access(device_address at, std::size_t bytes) override
  {
    if (fail_access) throw std::runtime_error("fake access failure");
    REQUIRE(at % page == 0);
    REQUIRE(bytes % page == 0);
    for (device_address a = at; a < at + bytes; a += page) REQUIRE(mapped.count(a) == 1);
    ++access_grants;
  }
  void unmap(device_address at) noexcept override { mapped.erase(at); }
  [[nodiscard]] std::size_t held_pages() const { return created - released; }

 private:
  device_address next_{std::uint64_t{1} << 40};
};

inline stream_view fake_stream(int i)
{
  return stream_view{reinterpret_cast<cudaStream_t>(static_cast<std::uintptr_t>(0x1000 * i))};
}

}  // namespace mcprice::testing
