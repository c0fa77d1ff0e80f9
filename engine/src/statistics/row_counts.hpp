#pragma once
// A call's (or a chunk's, or a batched caller's) rows by outcome: the run summary's counts.
#include "mcprice/results.hpp"

#include <cstddef>
#include <cstdint>

namespace mcprice::detail {

struct row_counts {
  std::size_t priced{0};
  std::size_t cancelled{0};
  std::size_t without_greeks{0};  // priced rows with no Greeks, where Greeks were asked for
  std::int64_t paths{0};          // of the priced rows

  void add(const trade_result& r, bool greeks)
  {
    if (r.status == trade_status::cancelled) {
      ++cancelled;
    } else if (r.status == trade_status::ok) {
      ++priced;
      paths += r.paths;
      if (greeks && !r.greeks) ++without_greeks;
    }
  }
};

}  // namespace mcprice::detail
