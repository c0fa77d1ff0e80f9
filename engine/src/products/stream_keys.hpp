#pragma once
// The key a trade's record carries for its normal stream: the Philox key of (run seed, trade id),
// or under --rng sobol the replicate's scrambling seed with the shape of the trade's points
// (rng/sobol_points.hpp), checked against the dimensions the direction numbers hold.
#include "mcprice/portfolio.hpp"
#include "mcprice/settings.hpp"

#include <cstdint>
#include <stdexcept>

namespace mcprice::detail {

// A trade that cannot be priced as asked; its row says why (the message names the trade).
struct trade_refused : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// steps: the path's steps (0: a terminal family's four points a group); factors: bridged normals
// a step; uniforms: raw coordinates after them (one a Heston step). Throws trade_refused when the
// trade needs more Sobol dimensions than there are.
std::uint64_t stream_key(const trade& t, const engine_options& opt, int steps, int factors, int uniforms = 0);

}  // namespace mcprice::detail
