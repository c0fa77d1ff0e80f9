#pragma once
// Fragmentation of the scratch memory over a load test, from the runner's memory samples. In
// bytes, with R requested by live allocations, A granted after rounding and V reserved:
// - internal: A - R, rounding waste inside live blocks;
// - cached-unused: V - A, held but free;
// - external: the cached-unused bytes outside the largest free block (a request larger than that
//   block cannot be served from them);
// - non-releasable: cached bytes whose frees the device has not passed, which cannot go back
//   without waiting on the device.
// At peak (the sample of the most reserved bytes) and time-weighted (each sample holding until
// the next). Host-only.
#include <cstddef>
#include <vector>

namespace mcprice::load {

struct memory_sample {
  double t_s;
  std::size_t requested;           // bytes asked for by live scratch allocations
  std::size_t granted;             // after the allocator's rounding
  std::size_t reserved;            // held from the device
  std::size_t largest_free;        // the largest cached free block (bucketed; 0 where not visible)
  std::size_t pending_free;        // cached bytes not yet passed by the device (bucketed)
  int streams_busy;                // the engine's streams with queued work (-1: unknown)
  std::size_t driver_reserved{0};  // the CUDA driver pool beneath (pool, bucketed; 0: none)
};

struct fragmentation {
  double internal{0.0};
  double cached_unused{0.0};
  double external{0.0};
  double non_releasable{0.0};
  double reserved{0.0};  // V at the same moment (or its time-weighted mean): the fractions' base
};

fragmentation fragmentation_of(const memory_sample& s);
fragmentation fragmentation_at_peak(const std::vector<memory_sample>& samples);
fragmentation fragmentation_time_weighted(const std::vector<memory_sample>& samples);
// The share of the run's time (time-weighted samples) when no stream had work queued; -1 when
// the samples do not say (no stream states, or fewer than two samples).
double device_idle_fraction(const std::vector<memory_sample>& samples);

}  // namespace mcprice::load
