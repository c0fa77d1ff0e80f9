#include "mcprice/memory_report.hpp"

namespace mcprice {

void print_report(std::ostream& out, const memory_report& r)
{
  out << "memory: allocator " << r.allocator << ", market data " << r.market_bytes << " bytes ("
      << (r.market_rdma_capable ? "GPUDirect RDMA capable" : "not RDMA capable: " + r.market_note) << ")\n";
  out << "  held from the driver: " << r.held_bytes << " B (peak " << r.held_peak << ")\n";
  if (r.pages) {
    out << "  mapped pages (" << r.pages->page_size << " B each): held " << r.pages->held << " B (peak "
        << r.pages->held_peak << "), mapped " << r.pages->mapped << " B (peak " << r.pages->mapped_peak << ", idle now "
        << r.pages->idle << " B), spare "
        << r.pages->spare << " B, blocks " << r.pages->live_bytes << " B live, " << r.pages->pending_frees
        << " frees pending, " << r.pages->free_extents << " gaps; pages created " << r.pages->pages_created
        << ", released " << r.pages->pages_released << ", mappings " << r.pages->maps << "; waits for a pending free "
        << r.pages->pending_waits << "\n";
  } else if (r.driver) {
    out << "  driver pool: reserved " << r.driver->reserved_current << " B (high " << r.driver->reserved_high
        << "), used " << r.driver->used_current << " B (high " << r.driver->used_high << ")\n";
  }
  if (r.scratch) print_report(out, *r.scratch);
  if (r.requests) {
    out << "scratch requests: requested " << r.requests->requested << " B (peak " << r.requests->requested_peak
        << "), allocations " << r.requests->allocations << ", failures " << r.requests->failures
        << ", allocation latency p50 " << r.requests->latency_p50_us << " us, p99 " << r.requests->latency_p99_us
        << " us\n";
  }
  if (r.gate) {
    out << "pool limit: " << r.gate->budget << " B admitted to jobs at most (peak " << r.gate->peak << "), "
        << r.gate->waits << " jobs waited " << r.gate->wait_s << " s in all, " << r.job_retries
        << " jobs gave back and came again (" << r.gate->alone_waits << " of them alone)\n";
  }
  if (r.graphs) {
    auto const& g = *r.graphs;
    out << "graphs: " << g.entries << " cached (" << g.in_use << " in use; at most " << g.max_entries << "), "
        << g.bytes << " B held for them (" << g.device_bytes << " B on the device; peak " << g.peak_bytes
        << ", at most " << g.max_bytes << "); " << g.replays << " replays, " << g.captures << " captures, "
        << g.evictions << " evicted, " << g.refusals << " eager for room, " << g.failures
        << " failed captures; graph pool reserved " << g.pool_reserved << " B (high " << g.pool_reserved_high
        << "), used " << g.pool_used << " B (high " << g.pool_used_high << ")\n";
  }
}

}  // namespace mcprice
