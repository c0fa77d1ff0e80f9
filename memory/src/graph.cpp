#include "mcprice/memory/graph.hpp"

#include "mcprice/memory/cuda_error.hpp"

#include <cstdint>

namespace mcprice {

namespace detail {
void destroy_graph(cudaGraph_t g) noexcept { MCPRICE_CUDA_TRY_NOTHROW(cudaGraphDestroy(g)); }
void destroy_graph_exec(cudaGraphExec_t e) noexcept { MCPRICE_CUDA_TRY_NOTHROW(cudaGraphExecDestroy(e)); }
}  // namespace detail

std::size_t graph::node_count() const
{
  std::size_t n = 0;
  MCPRICE_CUDA_TRY(cudaGraphGetNodes(graph_.get(), nullptr, &n));
  return n;
}

graph_exec::graph_exec(const graph& g)
{
  cudaGraphExec_t e = nullptr;
  MCPRICE_CUDA_TRY(cudaGraphInstantiate(&e, g.value(), 0));
  exec_ = decltype(exec_)(e);
}

void graph_exec::launch(stream_view s) const { MCPRICE_CUDA_TRY(cudaGraphLaunch(exec_.get(), s.value())); }

stream_capture::stream_capture(stream_view s) : stream_(s)
{
  MCPRICE_CUDA_TRY(cudaStreamBeginCapture(s.value(), cudaStreamCaptureModeThreadLocal));
}

stream_capture::~stream_capture()
{
  if (!open_) return;
  cudaGraph_t g = nullptr;
  // An invalidated capture still ends here (with an error, which is not the failure to report:
  // the exception that left the capture open is).
  if (cudaStreamEndCapture(stream_.value(), &g) != cudaSuccess) (void)cudaGetLastError();
  if (g != nullptr) detail::destroy_graph(g);
}

graph stream_capture::finish()
{
  open_ = false;
  cudaGraph_t g = nullptr;
  MCPRICE_CUDA_TRY(cudaStreamEndCapture(stream_.value(), &g));
  return graph(g);
}

graph_memory_usage query_graph_memory(int device)
{
  auto get = [device](cudaGraphMemAttributeType a) {
    std::uint64_t v = 0;
    MCPRICE_CUDA_TRY(cudaDeviceGetGraphMemAttribute(device, a, &v));
    return static_cast<std::size_t>(v);
  };
  return {get(cudaGraphMemAttrReservedMemCurrent), get(cudaGraphMemAttrReservedMemHigh),
          get(cudaGraphMemAttrUsedMemCurrent), get(cudaGraphMemAttrUsedMemHigh)};
}

void trim_graph_memory(int device) { MCPRICE_CUDA_TRY(cudaDeviceGraphMemTrim(device)); }

}  // namespace mcprice
