#pragma once
// A fixed set of streams that live as long as the engine. Pool blocks remember the stream that
// freed them; streams that outlive every block keep those records meaningful (a destroyed
// stream's handle could be handed out again and be mistaken for the old one).
#include "mcprice/memory/stream.hpp"

#include <atomic>
#include <vector>

namespace mcprice {

class stream_pool {
 public:
  explicit stream_pool(int count);
  [[nodiscard]] stream_view next() noexcept;  // round robin; thread-safe
  [[nodiscard]] int size() const noexcept { return static_cast<int>(streams_.size()); }
  [[nodiscard]] stream_view at(int i) const noexcept { return streams_[static_cast<std::size_t>(i)].view(); }

 private:
  std::vector<stream> streams_;
  std::atomic<unsigned> next_{0};
};

}  // namespace mcprice
