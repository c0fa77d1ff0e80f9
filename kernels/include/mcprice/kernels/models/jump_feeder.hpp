#pragma once
// A walk's jump draws one at a time, two from each next_uint4 of its stream, for the walks that
// step several assets and take one draw per jumping asset a step (the early-exercise walk, the
// Heston worst-of). Under Sobol points these are the unbridged dimensions after the bridged
// normals (rng/sobol_stream.hpp), and the trade's stream key counts 4 ceil(steps x jumping / 2).
#include "mcprice/kernels/detail/host_device.hpp"
#include "mcprice/kernels/models/jumps.hpp"

#include <cstdint>

namespace mcprice {

template <typename NormalStream>
struct jump_feeder {
  NormalStream* rng;  // the walk's stream (a walk that makes its stream later binds it then)
  std::uint32_t z{0}, w{0};
  bool held{false};

  MCPRICE_HD MCPRICE_INLINE jump_draw next()
  {
    if (held) {
      held = false;
      return {z, w};
    }
    auto const bits = rng->next_uint4();
    z = bits.z;
    w = bits.w;
    held = true;
    return {bits.x, bits.y};
  }
};

}  // namespace mcprice
