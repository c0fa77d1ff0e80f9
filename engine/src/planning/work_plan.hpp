#pragma once
// How a request's canonical blocks are grouped into segments (the unit of the fixed-order
// combine) and split into jobs that fit a scratch cap. Host-only, so it is tested without a GPU.
#include "mcprice/kernels/moments.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace mcprice::detail {

struct segment {
  std::size_t trade;
  std::int64_t first_block;  // within the request
  std::int64_t blocks;
};

struct segment_plan {
  std::vector<segment> segments;              // trade by trade, block order
  std::vector<std::size_t> first_segment_of;  // per trade, plus one past the end
  std::int64_t total_blocks{0};
};

// first_blocks[i]: the first canonical block of trade i, a running sum of the blocks before it.
segment_plan plan_segments(const std::vector<std::int64_t>& first_blocks, std::int64_t total_blocks);

template <typename Trade>
std::vector<std::int64_t> first_blocks_of(const std::vector<Trade>& trades)
{
  std::vector<std::int64_t> out;
  out.reserve(trades.size());
  for (const Trade& t : trades) out.push_back(t.first_block);
  return out;
}

struct job_range {
  std::size_t first_segment;
  std::size_t end_segment;
  [[nodiscard]] std::int64_t first_block(const segment_plan& p) const { return p.segments[first_segment].first_block; }
  [[nodiscard]] std::int64_t end_block(const segment_plan& p) const
  {
    const segment& last = p.segments[end_segment - 1];
    return last.first_block + last.blocks;
  }
};

// Scratch bytes a job of `blocks` blocks in `segments` segments needs.
using scratch_need = std::function<std::size_t(std::int64_t blocks, std::size_t segments)>;

struct job_split {
  std::vector<job_range> jobs;
  std::vector<std::size_t> trades_too_large;  // a single segment of theirs exceeds the cap
  std::size_t smallest_need{0};               // of the largest segment among those trades
};

// Greedy, in segment order: a job grows while its need stays within cap (0 = no cap) and its
// blocks within max_blocks. Segments of trades in `skip` are left out.
job_split plan_jobs(const segment_plan& plan, std::size_t cap, std::int64_t max_blocks, const scratch_need& need);

// A trade's sums (moments, or Greek sums): its segment sums added front to back.
template <typename Sums>
std::vector<Sums> combine_segments(const segment_plan& plan, const std::vector<Sums>& segment_sums, std::size_t trades)
{
  std::vector<Sums> out(trades);
  for (std::size_t t = 0; t < trades; ++t) {
    for (std::size_t s = plan.first_segment_of[t]; s < plan.first_segment_of[t + 1]; ++s)
      out[t] = out[t] + segment_sums[s];
  }
  return out;
}

}  // namespace mcprice::detail
