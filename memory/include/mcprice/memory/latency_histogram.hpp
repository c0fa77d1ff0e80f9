#pragma once
// allocate() latencies since construction, counted in logarithmic bins (16 a doubling, from
// 1/64 us to about 17 s), and their percentiles: shared by the resources that report allocation
// latency. Recording is a few arithmetic operations and a percentile walks the bins, so both
// are cheap under the owner's lock: a ring of 65,536 samples, copied and partially sorted for
// each percentile under the pool's lock, held the hot path up for milliseconds every time the
// load test sampled the memory report (H200, 2026-12-04). Not thread-safe: its owner locks.
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace mcprice {

// The q-quantile (0..1) of v: its element of rank floor(q (n - 1)); 0 for an empty v. Every
// latency percentile over exact samples (the load test's job latencies) uses it.
double percentile(std::vector<double> v, double q);

class latency_histogram {
 public:
  static constexpr int bins_per_doubling = 16;  // a bin spans 4.4%
  static constexpr int doublings = 30;
  static constexpr double lowest_us = 1.0 / 64.0;

  void record(double us) noexcept;
  // The q-quantile (0..1) of the samples recorded, to within half a bin (2.2%): the geometric
  // middle of the bin holding rank floor(q (n - 1)); 0 when there are none.
  [[nodiscard]] double percentile(double q) const noexcept;
  [[nodiscard]] std::uint64_t count() const noexcept { return total_; }

 private:
  // [0]: below lowest_us; [last]: beyond the top bin.
  std::array<std::uint64_t, bins_per_doubling * doublings + 2> counts_{};
  std::uint64_t total_{0};
};

}  // namespace mcprice
