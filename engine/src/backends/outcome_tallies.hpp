#pragma once
// Autocallables count how their price's paths ended (kernels/products/outcome_tally.hpp) in
// counters beside the sums: one buffer a request, each counted record's counters at an offset.
// Both backends place the buffer, point the records at it and hand each trade its counts.
#include "backends/family_run.hpp"

#include <cstddef>
#include <type_traits>
#include <vector>

namespace mcprice::detail {

template <typename Record, typename = void>
struct counts_outcomes : std::false_type {};
template <typename Record>
struct counts_outcomes<Record, std::void_t<decltype(std::declval<Record&>().tally_slots)>> : std::true_type {};

class tally_layout {
 public:
  template <typename Record>
  explicit tally_layout(const std::vector<Record>& records)
  {
    if constexpr (counts_outcomes<Record>::value) {
      for (auto const& r : records) {
        offsets_.push_back(slots_);
        slots_ += static_cast<std::size_t>(r.tally_slots);
      }
    }
  }

  // Counters of the whole request (0: nothing counted).
  [[nodiscard]] std::size_t slots() const noexcept { return slots_; }

  // Points each counted record at its counters, from `base` (a record without them keeps null).
  template <typename Record>
  void bind(Record* records, unsigned long long* base) const
  {
    if constexpr (counts_outcomes<Record>::value) {
      for (std::size_t i = 0; i < offsets_.size(); ++i) {
        records[i].tally = records[i].tally_slots > 0 ? base + offsets_[i] : nullptr;
      }
    }
  }

  // Each counted trade's counts into its outcome.
  void keep(const unsigned long long* counts, family_run& run) const
  {
    for (std::size_t i = 0; i < offsets_.size(); ++i) {
      std::size_t const end = i + 1 < offsets_.size() ? offsets_[i + 1] : slots_;
      if (end > offsets_[i]) run.outcomes[i].tally.assign(counts + offsets_[i], counts + end);
    }
  }

 private:
  std::vector<std::size_t> offsets_;  // per record (counted families only)
  std::size_t slots_{0};
};

}  // namespace mcprice::detail
