#pragma once
// A cache of reusable entries (the GPU backend's captured job graphs) under a count and a byte
// budget, least recently used out. An entry is lent to one user at a time: take() removes it
// from the idle set, give_back() returns it as the most recently used. Lent entries still count
// against both budgets, so the bytes that entries hold, idle or in use, never exceed the
// budget: a new entry that cannot be made room for is refused (its user runs without one).
// Evicted entries are handed to the caller, who destroys them outside any lock. Not
// thread-safe: the owner guards it.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <list>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

namespace mcprice::detail {

struct lent_lru_statistics {
  std::size_t entries{0};  // idle and lent
  std::size_t lent{0};
  std::size_t bytes{0};  // idle and lent
  std::size_t peak_bytes{0};
  std::uint64_t hits{0};
  std::uint64_t misses{0};
  std::uint64_t evictions{0};
  std::uint64_t refusals{0};  // new entries refused for room
};

template <typename Key, typename Value, typename Hash = std::hash<Key>>
class lent_lru {
 public:
  lent_lru(std::size_t max_entries, std::size_t max_bytes) : max_entries_(max_entries), max_bytes_(max_bytes) {}

  // An idle entry of `key`, now lent; none if every entry of the key is lent or there is none.
  std::optional<Value> take(const Key& key)
  {
    auto found = by_key_.find(key);
    if (found == by_key_.end() || found->second.empty()) {
      ++stats_.misses;
      return std::nullopt;
    }
    auto at = found->second.back();
    found->second.pop_back();
    if (found->second.empty()) by_key_.erase(found);
    Value v = std::move(at->value);
    stats_.lent += 1;
    idle_bytes_ -= at->bytes;
    idle_.erase(at);
    ++stats_.hits;
    return v;
  }

  // Room for a new entry of `bytes`, lent from now on: idle entries go, least recently used
  // first, into `evicted`. False, with nothing evicted, if lent entries alone leave no room.
  bool make_room(std::size_t bytes, std::vector<Value>& evicted)
  {
    if (stats_.lent + 1 > max_entries_ || stats_.bytes - idle_bytes_ + bytes > max_bytes_) {
      ++stats_.refusals;
      return false;
    }
    while (stats_.entries + 1 > max_entries_ || stats_.bytes + bytes > max_bytes_) evict_oldest(evicted);
    stats_.entries += 1;
    stats_.lent += 1;
    stats_.bytes += bytes;
    stats_.peak_bytes = std::max(stats_.peak_bytes, stats_.bytes);
    return true;
  }

  // A lent entry comes back idle, the most recently used of all.
  void give_back(const Key& key, Value value, std::size_t bytes)
  {
    stats_.lent -= 1;
    idle_bytes_ += bytes;
    idle_.push_front({key, std::move(value), bytes});
    by_key_[key].push_back(idle_.begin());
  }

  // A lent entry will not come back (its user failed and destroyed it).
  void forget(std::size_t bytes)
  {
    stats_.lent -= 1;
    stats_.entries -= 1;
    stats_.bytes -= bytes;
  }

  // Every idle entry, evicted (a trim).
  std::vector<Value> evict_idle()
  {
    std::vector<Value> out;
    while (!idle_.empty()) evict_oldest(out);
    return out;
  }

  [[nodiscard]] const lent_lru_statistics& statistics() const noexcept { return stats_; }
  [[nodiscard]] std::size_t max_entries() const noexcept { return max_entries_; }
  [[nodiscard]] std::size_t max_bytes() const noexcept { return max_bytes_; }

 private:
  struct idle_entry {
    Key key;
    Value value;
    std::size_t bytes;
  };
  using idle_list = std::list<idle_entry>;

  void evict_oldest(std::vector<Value>& out)
  {
    auto last = std::prev(idle_.end());
    auto& same = by_key_[last->key];
    for (auto it = same.begin(); it != same.end(); ++it) {
      if (*it == last) {
        same.erase(it);
        break;
      }
    }
    if (same.empty()) by_key_.erase(last->key);
    stats_.entries -= 1;
    stats_.bytes -= last->bytes;
    idle_bytes_ -= last->bytes;
    ++stats_.evictions;
    out.push_back(std::move(last->value));
    idle_.erase(last);
  }

  std::size_t max_entries_;
  std::size_t max_bytes_;
  idle_list idle_;  // most recently used first
  std::unordered_map<Key, std::vector<typename idle_list::iterator>, Hash> by_key_;
  std::size_t idle_bytes_{0};
  lent_lru_statistics stats_;
};

}  // namespace mcprice::detail
