#pragma once
// Host mirror of a cuRAND Philox4_32_10 state after curand_init(key, subsequence, offset):
// next_uint4() equals curand4() and next_normal4() equals curand_normal4() up to the
// device's sin/cos rounding.
#include "mcprice/kernels/rng/box_muller.hpp"

namespace mcprice::rng {

class host_philox_stream {
 public:
  host_philox_stream(std::uint64_t key, std::uint64_t subsequence, std::uint64_t offset = 0)
      : key_(make_key(key)), counter_(make_counter(subsequence, offset / 4)), phase_(static_cast<unsigned>(offset % 4))
  {
    output_ = philox4x32_10(counter_, key_);
  }

  u32x4 next_uint4()
  {
    u32x4 const current = output_;
    increment(counter_);
    output_ = philox4x32_10(counter_, key_);
    switch (phase_) {
      case 1:
        return {current.y, current.z, current.w, output_.x};
      case 2:
        return {current.z, current.w, output_.x, output_.y};
      case 3:
        return {current.w, output_.x, output_.y, output_.z};
      default:
        return current;
    }
  }

  f32x4 next_normal4() { return box_muller4(next_uint4()); }

 private:
  philox_key key_;
  u32x4 counter_;
  u32x4 output_{};
  unsigned phase_;
};

// The per-path code takes a NormalStream built from (key, subsequence); this is the CPU one.
struct host_normal_stream {
  MCPRICE_INLINE host_normal_stream(std::uint64_t key, std::uint64_t subsequence) : stream_(key, subsequence) {}
  MCPRICE_INLINE f32x4 next4() { return stream_.next_normal4(); }
  MCPRICE_INLINE u32x4 next_uint4() { return stream_.next_uint4(); }
  MCPRICE_INLINE f64x4 next4_double()
  {
    u32x4 const first = stream_.next_uint4();
    return box_muller4_double(first, stream_.next_uint4());
  }

 private:
  host_philox_stream stream_;
};

}  // namespace mcprice::rng
