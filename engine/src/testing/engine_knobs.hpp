#pragma once
// Settings for tests and benchmarks only, kept out of the public engine_options: each gives the
// same bits as its default, more slowly, so that a test can check that it does.
#include "mcprice/engine.hpp"

namespace mcprice::detail {

struct engine_knobs {
  // Greeks of American and Bermudan trades on the GPU: the spot scenarios of a trade's delta,
  // gamma and cross-gamma combinations walk each path once, together (false: each combination
  // walks its own).
  bool shared_greek_walks{true};
  // Calibrations of American and Bermudan trades on the GPU: a family of few trades and few
  // paths runs all its backward steps in one cooperative launch where its blocks fit the GPU at
  // once (false: a launch a step, its last block solving).
  bool calibration_one_launch{true};
};

}  // namespace mcprice::detail
