#pragma once
// Geometric size classes: `per_doubling` classes between each power of two from min_bytes up to
// max_bytes, each a multiple of 256 bytes. Rounding a request up to its class bounds internal
// fragmentation by 2^(1/per_doubling) - 1 (19% for 4 per doubling) while letting blocks of
// nearby sizes be reused for one another.
#include <cstddef>
#include <vector>

namespace mcprice {

struct size_class_options {
  std::size_t min_bytes{std::size_t{1} << 16};  // 64 KiB
  std::size_t max_bytes{std::size_t{1} << 30};  // 1 GiB; larger requests bypass the classes
  int per_doubling{4};
  // Classes of at least this many bytes are whole multiples of it (0: none): over mapped pages a
  // block of a page or more takes whole pages, and the pool then counts what it holds.
  std::size_t page_bytes{0};
};

class size_classes {
 public:
  explicit size_classes(const size_class_options& options = {});
  [[nodiscard]] int count() const noexcept { return static_cast<int>(sizes_.size()); }
  // Smallest class that holds `bytes`, or -1 when bytes exceeds the largest class.
  [[nodiscard]] int class_of(std::size_t bytes) const noexcept;
  [[nodiscard]] std::size_t size_of(int cls) const noexcept { return sizes_[static_cast<std::size_t>(cls)]; }

 private:
  std::vector<std::size_t> sizes_;
};

}  // namespace mcprice
