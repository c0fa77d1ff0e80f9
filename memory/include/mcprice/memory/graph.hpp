#pragma once
// Move-only owners of a CUDA graph and of its executable instance, and the capture that makes
// a graph from the work queued on one stream. Capture runs in thread-local mode: other threads
// keep allocating and synchronising while one thread captures (a risk platform prices from many
// threads at once), and only the capturing thread's own unsafe calls end its capture.
#include "mcprice/memory/stream.hpp"
#include "mcprice/memory/unique_handle.hpp"

#include <cstddef>

namespace mcprice {

namespace detail {
void destroy_graph(cudaGraph_t g) noexcept;
void destroy_graph_exec(cudaGraphExec_t e) noexcept;
}  // namespace detail

class graph {
 public:
  graph() noexcept = default;
  explicit graph(cudaGraph_t g) noexcept : graph_(g) {}

  [[nodiscard]] cudaGraph_t value() const noexcept { return graph_.get(); }
  [[nodiscard]] std::size_t node_count() const;

 private:
  unique_handle<cudaGraph_t, detail::destroy_graph> graph_;
};

class graph_exec {
 public:
  graph_exec() noexcept = default;
  // Instantiates g. Its allocation nodes' memory is freed inside the graph, so one launch of
  // this instance at a time owns it: launches of one instance are ordered by the runtime.
  explicit graph_exec(const graph& g);

  void launch(stream_view s) const;
  [[nodiscard]] cudaGraphExec_t value() const noexcept { return exec_.get(); }
  [[nodiscard]] explicit operator bool() const noexcept { return exec_.get() != nullptr; }

 private:
  unique_handle<cudaGraphExec_t, detail::destroy_graph_exec> exec_;
};

// Everything queued on `s` between construction and finish() becomes a graph instead of
// running. A capture left unfinished (an exception on the way) is ended and its graph
// discarded by the destructor, which never throws.
class stream_capture {
 public:
  explicit stream_capture(stream_view s);
  ~stream_capture();
  stream_capture(const stream_capture&) = delete;
  stream_capture& operator=(const stream_capture&) = delete;

  [[nodiscard]] graph finish();

 private:
  stream_view stream_;
  bool open_{true};
};

// The device's graph memory pool: what graphs' allocation nodes hold from the driver, and what
// they use now, with their high-water marks since the process began.
struct graph_memory_usage {
  std::size_t reserved{0};
  std::size_t reserved_high{0};
  std::size_t used{0};
  std::size_t used_high{0};
};

[[nodiscard]] graph_memory_usage query_graph_memory(int device);
// Gives the graph pool's memory that no instantiated graph's allocation holds back to the driver.
void trim_graph_memory(int device);

}  // namespace mcprice
