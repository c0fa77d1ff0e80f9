#pragma once
// Move-only CUDA event. Streams are ordered by recording and waiting on events, never by
// device-wide synchronisation.
#include "mcprice/memory/stream.hpp"

namespace mcprice {

namespace detail {
void destroy_event(cudaEvent_t e) noexcept;
}

class event {
 public:
  enum class timing { disabled, enabled };
  explicit event(timing t = timing::disabled);

  void record(stream_view s);
  void make_wait(stream_view waiter) const;  // waiter runs past this point only after the record
  [[nodiscard]] bool query() const;          // true once the recorded work is complete
  void synchronize() const;
  [[nodiscard]] cudaEvent_t value() const noexcept { return event_.get(); }
  // Milliseconds between two recorded timing events.
  [[nodiscard]] static float elapsed_ms(const event& start, const event& stop);

 private:
  unique_handle<cudaEvent_t, detail::destroy_event> event_;
};

}  // namespace mcprice
