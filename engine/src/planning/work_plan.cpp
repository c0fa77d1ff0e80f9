#include "planning/work_plan.hpp"

#include "mcprice/kernels/layout/canonical_layout.hpp"

#include <algorithm>

namespace mcprice::detail {

segment_plan plan_segments(const std::vector<std::int64_t>& first_blocks, std::int64_t total_blocks)
{
  segment_plan p;
  p.total_blocks = total_blocks;
  for (std::size_t i = 0; i < first_blocks.size(); ++i) {
    p.first_segment_of.push_back(p.segments.size());
    std::int64_t const end = i + 1 < first_blocks.size() ? first_blocks[i + 1] : total_blocks;
    for (std::int64_t b = first_blocks[i]; b < end; b += layout::blocks_per_segment) {
      p.segments.push_back({i, b, std::min(layout::blocks_per_segment, end - b)});
    }
  }
  p.first_segment_of.push_back(p.segments.size());
  return p;
}

job_split plan_jobs(const segment_plan& plan, std::size_t cap, std::int64_t max_blocks, const scratch_need& need)
{
  job_split out;
  std::vector<bool> too_large(plan.first_segment_of.size() - 1, false);
  if (cap != 0) {
    for (const segment& s : plan.segments) {
      std::size_t const n = need(s.blocks, 1);
      if (n > cap && !too_large[s.trade]) {
        too_large[s.trade] = true;
        out.trades_too_large.push_back(s.trade);
        out.smallest_need = std::max(out.smallest_need, n);
      }
    }
  }
  std::size_t i = 0;
  while (i < plan.segments.size()) {
    if (too_large[plan.segments[i].trade]) {
      ++i;
      continue;
    }
    job_range job{i, i + 1};
    std::int64_t blocks = plan.segments[i].blocks;
    while (job.end_segment < plan.segments.size()) {
      const segment& next = plan.segments[job.end_segment];
      if (too_large[next.trade]) break;
      std::int64_t const more = blocks + next.blocks;
      std::size_t const segs = job.end_segment + 1 - job.first_segment;
      if (more > max_blocks || (cap != 0 && need(more, segs) > cap)) break;
      blocks = more;
      ++job.end_segment;
    }
    out.jobs.push_back(job);
    i = job.end_segment;
  }
  return out;
}

}  // namespace mcprice::detail
