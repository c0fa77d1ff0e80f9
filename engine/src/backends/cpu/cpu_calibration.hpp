#pragma once
// The CPU backend's calibration executor: the plan's paths in host memory, blocks spread over
// threads, each block's lanes summed in order. A cancelled run skips the blocks left.
#include "families/exercise_family.hpp"

#include <memory>

namespace mcprice::detail {

// surfaces: the backend's copy of the market's local-vol grids (null where no trade reads one).
// Real: the path precision (float, or double for --precision double).
template <typename Real>
std::unique_ptr<basic_calibration_executor<Real>> make_cpu_calibration(const basic_exercise_family<Real>& f,
                                                                       const exercise_table_layout& l,
                                                                       const calibration_plan& plan,
                                                                       const run_control& control,
                                                                       const basic_vol_pair<Real>* surfaces = nullptr);

}  // namespace mcprice::detail
