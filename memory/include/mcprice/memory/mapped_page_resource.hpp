#pragma once
// Scratch memory the engine maps itself, page by page, so that what it holds from the driver is
// exactly what it counts. Blocks are placed in one large range of addresses, each at the lowest
// free place that fits (detail::address_arena), and the physical pages beneath (2 MiB on the
// H200) are mapped while any block touching them is live. Blocks share pages with their
// neighbours, so live blocks cost their bytes plus the partial pages between them, where a
// driver pool maps 32 MiB chunks and gives one back only once no block in it is live.
//
// A free is stream-ordered: the block's place and pages are released only once the device has
// passed a mark recorded on the freeing stream. A page no block touches stays mapped, idle, for
// the next block placed there; release_unused unmaps idle pages and gives them and the spares
// back to the device. The limit bounds the pages held, mapped (live or idle) and spare together.
#include "mcprice/memory/memory_resource.hpp"
#include "mcprice/memory/memory_statistics.hpp"
#include "mcprice/memory/page_driver.hpp"
#include "mcprice/memory/stream_ordering.hpp"

#include <chrono>
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace mcprice {
namespace detail {
class address_arena;
}

struct mapped_page_options {
  std::size_t limit_bytes{0};  // most bytes of pages held, mapped or spare; 0 = no limit
  // The range of addresses blocks are placed in: the most bytes live at once, with the gaps
  // between them (twice the device's memory, say: addresses are plentiful, pages are not).
  std::size_t range_bytes{std::size_t{1} << 38};
  // An idle page (mapped, no block on it) goes back on release_unused only once it has been
  // idle this long: a page given back and mapped again a moment later costs a driver call each
  // way, and under load on the H200 a growth that mapped pages took 0.2-7 ms. 0: at once.
  double idle_release_s{0.0};
  // A block placed where no page is mapped takes an idle page from elsewhere (unmapped, mapped
  // again here) before a new page is created: idle pages serve blocks placed where they are, and
  // one that blocks of other sizes cannot reach would otherwise be held beside the new one.
  // false: a new page, the idle ones kept (but for the limit).
  bool move_idle_pages{true};
};

// The pages' settings as the engine builds them (gpu_context.cpp), its range of addresses aside;
// the allocation benchmark and the profile replay start from the same.
[[nodiscard]] inline mapped_page_options engine_page_options()
{
  mapped_page_options o;
  o.idle_release_s = 1.0;  // a burst's pages stay for the next burst (docs/memory.md)
  return o;
}

class mapped_page_resource final : public memory_resource {
 public:
  mapped_page_resource(page_driver& driver, stream_ordering& ordering, mapped_page_options options = {});
  ~mapped_page_resource() override;  // waits for pending frees, then gives every page back

  [[nodiscard]] mapped_page_usage usage() const;

 private:
  struct page_entry {
    page_handle page;
    std::size_t refs;  // live or pending blocks that touch the page
  };
  struct pending_free {
    device_address at;
    std::size_t size;
    order_token mark;
    cudaStream_t stream;  // a stream passes its marks in order: reap stops at its first unpassed
  };
  using clock = std::chrono::steady_clock;

  void* do_allocate(std::size_t bytes, stream_view s) override;
  void do_deallocate(void* p, std::size_t bytes, stream_view s) noexcept override;
  [[nodiscard]] std::string do_name() const override { return "pages"; }
  [[nodiscard]] std::size_t do_granted_size(std::size_t bytes) const override;
  void do_release_unused(std::size_t keep) noexcept override;

  void reserve_range();
  [[nodiscard]] std::size_t placed_size(std::size_t size) const noexcept;  // what the block takes of its arena
  [[nodiscard]] detail::address_arena& arena_for(std::size_t size) noexcept;
  void map_block(std::size_t offset, std::size_t size);
  void unref_pages(std::size_t first, std::size_t end) noexcept;  // pages [first, end)
  page_handle next_page(std::size_t for_page);  // a spare, or a new one within the limit
  void evict(std::size_t page) noexcept;
  void release_block(device_address at, std::size_t size) noexcept;
  // Releases blocks whose frees the device has passed: each stream's oldest first, up to its
  // first unpassed free, at most `most_polls` polls (each a driver call; an allocation makes 16).
  void reap(std::size_t most_polls = 16) noexcept;
  bool settle_pending() noexcept;  // the host waits for every pending free; true if there were any
  bool settle_oldest() noexcept;   // passed frees back, else the host waits for the oldest one
  [[nodiscard]] std::size_t pages_within_limit() const noexcept;
  void release_spares(std::size_t keep) noexcept;
  [[nodiscard]] std::size_t held() const noexcept { return (pages_.size() + spare_.size()) * page_; }
  void note_held() noexcept;

  page_driver& driver_;
  stream_ordering& ordering_;
  std::size_t limit_;
  std::size_t range_bytes_;
  std::size_t page_;
  clock::duration idle_release_;
  bool move_idle_;

  mutable std::mutex mutex_;
  device_address base_{0};  // the range, reserved at the first allocation
  std::unique_ptr<detail::address_arena> arena_;  // blocks smaller than a page
  std::unique_ptr<detail::address_arena> large_;  // the rest, in whole pages
  std::unordered_map<std::size_t, page_entry> pages_;  // by page index in the range
  std::unordered_map<device_address, std::size_t> live_;  // block address -> its size
  std::vector<pending_free> pending_;
  std::vector<page_handle> spare_;
  std::map<std::size_t, clock::time_point> idle_;  // mapped pages no block touches, by index: since when
  mapped_page_usage counts_;
};

}  // namespace mcprice
