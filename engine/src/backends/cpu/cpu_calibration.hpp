#pragma once
// The CPU backend's calibration executor: the plan's paths in host memory, blocks spread over
// threads, each block's lanes summed in order. A cancelled run skips the blocks left.
#include "families/exercise_family.hpp"

#include <memory>

namespace mcprice::detail {

// surfaces: the backend's copy of the market's local-vol grids (null where no trade reads one).
std::unique_ptr<calibration_executor> make_cpu_calibration(const exercise_family& f, const exercise_table_layout& l,
                                                           const calibration_plan& plan, const run_control& control,
                                                           const basic_vol_pair<float>* surfaces = nullptr);

}  // namespace mcprice::detail
