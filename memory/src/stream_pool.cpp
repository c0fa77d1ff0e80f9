#include "mcprice/memory/stream_pool.hpp"

#include <stdexcept>

namespace mcprice {

stream_pool::stream_pool(int count)
{
  if (count < 1) throw std::invalid_argument("a stream pool needs at least one stream");
  streams_.reserve(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) streams_.emplace_back();
}

stream_view stream_pool::next() noexcept
{
  return streams_[next_.fetch_add(1, std::memory_order_relaxed) % streams_.size()].view();
}

}  // namespace mcprice
