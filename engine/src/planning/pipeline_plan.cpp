#include "planning/pipeline_plan.hpp"

#include <algorithm>

namespace mcprice::detail {

std::vector<std::size_t> pipeline_bounds(std::size_t n, std::size_t first)
{
  std::vector<std::size_t> bounds{0};
  if (first == 0 || n < 3 * first) {
    bounds.push_back(n);
    return bounds;
  }
  // The cap keeps chunks few on very large books (about 16 at the cap) and the ramp short on
  // small ones (8 x first).
  std::size_t const cap = std::max(8 * first, (n + 15) / 16);
  std::size_t rest = n - 3 * first;  // the closing 2 x first and first
  std::size_t size = first;
  while (rest > 0) {
    std::size_t const take = std::min(size, rest);
    if (take < first && bounds.size() > 1) bounds.back() += take;  // no runt chunk mid-book
    else bounds.push_back(bounds.back() + take);
    rest -= take;
    size = std::min(2 * size, cap);
  }
  if (bounds.size() == 1) bounds.push_back(first);  // n == 3 x first: three chunks of first
  bounds.push_back(n - first);
  bounds.push_back(n);
  return bounds;
}

}  // namespace mcprice::detail
