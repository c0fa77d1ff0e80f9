#pragma once
// Scratch for work being captured into a CUDA graph: each allocation becomes an allocation node
// and each free a free node of the graph, so the graph owns its scratch and the runtime plans
// its placement in the device's graph memory pool (graph.hpp's query_graph_memory reports it).
// Used outside a capture it is plain stream-ordered allocation from the device's default pool.
#include "mcprice/memory/memory_resource.hpp"

namespace mcprice {

class capture_scratch_resource final : public memory_resource {
 private:
  void* do_allocate(std::size_t bytes, stream_view s) override;
  void do_deallocate(void* p, std::size_t bytes, stream_view s) noexcept override;
  [[nodiscard]] std::string do_name() const override { return "graph allocation nodes"; }
};

}  // namespace mcprice
