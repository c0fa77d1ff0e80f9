#pragma once
// The most recent allocate() latencies (a ring of 65,536 samples) and their percentiles: shared
// by the resources that report allocation latency. Not thread-safe: its owner locks.
#include <cstddef>
#include <vector>

namespace mcprice {

// The q-quantile (0..1) of v: its element of rank floor(q (n - 1)); 0 for an empty v. Every
// latency percentile the engine and its tools report uses it.
double percentile(std::vector<double> v, double q);

class latency_ring {
 public:
  static constexpr std::size_t capacity = std::size_t{1} << 16;

  void record(double us);
  // The q-quantile (0..1) of the samples held; 0 when there are none.
  [[nodiscard]] double percentile(double q) const;

 private:
  std::vector<double> samples_;
  std::size_t next_{0};
};

}  // namespace mcprice
