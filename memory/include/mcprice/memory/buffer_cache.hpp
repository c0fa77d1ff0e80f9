#pragma once
// Keeps released buffers for the next request of a similar size, so request-lifetime buffers
// (a request's trade table, its pinned result staging) are allocated once per engine rather than
// once per request. Sizes grow in powers of two; everything is freed with the cache.
#include "mcprice/memory/owning_buffer.hpp"

#include <algorithm>
#include <mutex>
#include <vector>

namespace mcprice {

template <typename Traits>
class buffer_cache {
 public:
  using buffer = owning_buffer<Traits>;

  class handle {
   public:
    handle(buffer_cache& cache, buffer b) : cache_(&cache), buffer_(std::move(b)) {}
    ~handle()
    {
      if (cache_ != nullptr) cache_->give_back(std::move(buffer_));
    }
    handle(handle&& o) noexcept : cache_(std::exchange(o.cache_, nullptr)), buffer_(std::move(o.buffer_)) {}
    handle& operator=(handle&&) = delete;
    handle(const handle&) = delete;
    handle& operator=(const handle&) = delete;
    [[nodiscard]] buffer& get() noexcept { return buffer_; }

   private:
    buffer_cache* cache_;
    buffer buffer_;
  };

  [[nodiscard]] handle acquire(std::size_t bytes)
  {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto best = idle_.end();
      for (auto it = idle_.begin(); it != idle_.end(); ++it) {
        if (it->size() >= bytes && (best == idle_.end() || it->size() < best->size())) best = it;
      }
      if (best != idle_.end()) {
        buffer b = std::move(*best);
        idle_.erase(best);
        return handle(*this, std::move(b));
      }
    }
    std::size_t size = std::size_t{64} << 10;
    while (size < bytes) size *= 2;
    return handle(*this, buffer(size));
  }

 private:
  void give_back(buffer b) noexcept
  {
    try {
      std::lock_guard<std::mutex> lock(mutex_);
      idle_.push_back(std::move(b));
    } catch (...) {
      // Out of host memory for the list: the buffer is freed here instead.
    }
  }

  std::mutex mutex_;
  std::vector<buffer> idle_;
};

}  // namespace mcprice
