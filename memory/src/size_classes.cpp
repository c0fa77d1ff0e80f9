#include "mcprice/memory/size_classes.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace mcprice {

size_classes::size_classes(const size_class_options& o)
{
  if (o.per_doubling < 1 || o.min_bytes == 0 || o.max_bytes < o.min_bytes) {
    throw std::invalid_argument("size classes need per_doubling >= 1 and 0 < min_bytes <= max_bytes");
  }
  constexpr std::size_t granule = 256;
  for (int i = 0;; ++i) {
    double const exact = static_cast<double>(o.min_bytes) * std::pow(2.0, static_cast<double>(i) / o.per_doubling);
    std::size_t size = (static_cast<std::size_t>(std::ceil(exact)) + granule - 1) / granule * granule;
    if (o.page_bytes != 0 && size >= o.page_bytes) size = (size + o.page_bytes - 1) / o.page_bytes * o.page_bytes;
    if (!sizes_.empty() && size <= sizes_.back()) continue;  // tiny sizes can round to the same granule
    if (size >= o.max_bytes) {
      sizes_.push_back((o.max_bytes + granule - 1) / granule * granule);
      break;
    }
    sizes_.push_back(size);
  }
}

int size_classes::class_of(std::size_t bytes) const noexcept
{
  auto const it = std::lower_bound(sizes_.begin(), sizes_.end(), bytes);
  return it == sizes_.end() ? -1 : static_cast<int>(it - sizes_.begin());
}

}  // namespace mcprice
