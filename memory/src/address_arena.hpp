#pragma once
// Where the mapped pages put each block in their one range of addresses: address-ordered first
// fit over the free extents, which are merged with their neighbours as blocks come back. The
// lowest fitting place is taken so that live blocks stay packed at the front of the range and
// share pages; only the pages blocks touch are mapped, so a free extent costs nothing physical
// unless it shares a page with a live block.
#include <cstddef>
#include <map>
#include <optional>

namespace mcprice::detail {

class address_arena {
 public:
  // Offsets [from, from + bytes) of the range.
  explicit address_arena(std::size_t bytes, std::size_t from = 0) { free_.emplace(from, bytes); }
  // The offset of a free extent of `bytes`, now taken; none when no extent is large enough.
  std::optional<std::size_t> take(std::size_t bytes)
  {
    for (auto it = free_.begin(); it != free_.end(); ++it) {
      if (it->second < bytes) continue;
      std::size_t const at = it->first;
      std::size_t const rest = it->second - bytes;
      free_.erase(it);
      if (rest != 0) free_.emplace(at + bytes, rest);
      return at;
    }
    return std::nullopt;
  }
  void give(std::size_t at, std::size_t bytes)
  {
    auto next = free_.lower_bound(at);
    if (next != free_.end() && at + bytes == next->first) {  // merge with the extent after
      bytes += next->second;
      next = free_.erase(next);
    }
    if (next != free_.begin()) {
      auto prev = std::prev(next);
      if (prev->first + prev->second == at) {  // and with the one before
        prev->second += bytes;
        return;
      }
    }
    free_.emplace(at, bytes);
  }
  [[nodiscard]] std::size_t extents() const noexcept { return free_.size(); }

 private:
  std::map<std::size_t, std::size_t> free_;  // offset -> length
};

}  // namespace mcprice::detail
