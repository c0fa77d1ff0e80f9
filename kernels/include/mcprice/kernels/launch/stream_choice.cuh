#pragma once
// Which normal stream a launch's kernels draw from: Philox (the default), or Owen-scrambled
// Sobol points where the target names a direction table (--rng sobol). The choice is a template
// argument of the kernel, so the pseudo-random kernels are exactly what they were.
#include "mcprice/kernels/launch/launch_target.hpp"
#include "mcprice/kernels/rng/device_normal_stream.cuh"
#include "mcprice/kernels/rng/device_sobol_stream.cuh"
#include "mcprice/memory/cuda_error.hpp"

namespace mcprice::kernels::detail {

template <typename Stream>
struct stream_tag {
  using type = Stream;
};

// The Sobol half of with_normal_stream, for a source that holds only its family's Sobol kernels
// (a module of their own, kernel_module.cuh): binds this module's direction pointer to the
// target's table, on its stream, then launch(stream_tag<Quasi>{}).
template <typename Quasi, typename Launch>
void with_quasi_stream(const launch_target& at, Launch&& launch)
{
  cudaError_t const status = rng::bind_sobol_directions(at.sobol_directions, at.stream);
  if (status != cudaSuccess) throw cuda_error(status, "binding the Sobol direction table", __FILE__, __LINE__);
  launch(stream_tag<Quasi>{});
}

// launch(stream_tag<S>{}) with S = rng::device_normal_stream, or Quasi (bound to the target's
// direction table on its stream first).
template <typename Quasi, typename Launch>
void with_normal_stream(const launch_target& at, Launch&& launch)
{
  if (at.sobol_directions == nullptr) launch(stream_tag<rng::device_normal_stream>{});
  else with_quasi_stream<Quasi>(at, launch);
}

}  // namespace mcprice::kernels::detail
