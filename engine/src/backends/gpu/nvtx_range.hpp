#pragma once
// Named phases on the Nsight Systems timeline (plan, upload, each job, reduce,
// collect). Header-only NVTX 3: costs nothing measurable when no tool is attached.
#include <nvtx3/nvToolsExt.h>

#include <string>

namespace mcprice::detail {

class nvtx_range {
 public:
  explicit nvtx_range(const char* name) { nvtxRangePushA(name); }
  explicit nvtx_range(const std::string& name) { nvtxRangePushA(name.c_str()); }
  ~nvtx_range() { nvtxRangePop(); }
  nvtx_range(const nvtx_range&) = delete;
  nvtx_range& operator=(const nvtx_range&) = delete;
};

}  // namespace mcprice::detail
