#pragma once
// Scratch handed out from one buffer that its owner holds, by bumping an offset; freeing is a
// no-op and reset() starts again from the front. A captured graph's jobs run one after another
// on one stream, so each job reuses the same bytes: the graph's scratch is its largest job's,
// at addresses fixed for the graph's life. An allocation past the end throws out_of_memory.
#include "mcprice/memory/memory_resource.hpp"
#include "mcprice/memory/persistent_arena.hpp"

namespace mcprice {

class arena_scratch_resource final : public memory_resource {
 public:
  arena_scratch_resource(void* base, std::size_t bytes) noexcept : arena_(base, bytes), base_(base), bytes_(bytes) {}
  void reset() noexcept { arena_ = arena_view(base_, bytes_); }

 private:
  void* do_allocate(std::size_t bytes, stream_view s) override;
  void do_deallocate(void* /*p*/, std::size_t /*bytes*/, stream_view /*s*/) noexcept override {}
  [[nodiscard]] std::string do_name() const override { return "arena scratch"; }

  arena_view arena_;
  void* base_;
  std::size_t bytes_;
};

}  // namespace mcprice
