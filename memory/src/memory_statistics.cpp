#include "mcprice/memory/memory_statistics.hpp"

#include <iomanip>

namespace mcprice {
namespace {
double one_minus_ratio(std::size_t num, std::size_t den)
{
  return den == 0 ? 0.0 : 1.0 - static_cast<double>(num) / static_cast<double>(den);
}
double mib(std::size_t b) { return static_cast<double>(b) / (1024.0 * 1024.0); }
}  // namespace

double pool_statistics::internal_fragmentation() const { return one_minus_ratio(requested, allocated); }
double pool_statistics::cached_unused_fraction() const { return one_minus_ratio(allocated, reserved); }
double pool_statistics::external_fragmentation() const { return one_minus_ratio(largest_free_block, total_free); }

void print_report(std::ostream& out, const pool_statistics& s)
{
  auto const f = out.flags();
  out << std::fixed << std::setprecision(2);
  out << "scratch pool: requested " << mib(s.requested) << " MiB (peak " << mib(s.requested_peak) << "), allocated "
      << mib(s.allocated) << " MiB (peak " << mib(s.allocated_peak) << "), reserved " << mib(s.reserved)
      << " MiB (peak " << mib(s.reserved_peak) << ")\n";
  out << "  in use on the device (requested, until each free passes): " << mib(s.device_requested) << " MiB (peak "
      << mib(s.device_requested_peak) << ")\n";
  out << "  allocations " << s.allocations << ", cross-stream reuses " << s.cross_stream_reuses << ", event waits "
      << s.event_waits << ", upstream grows " << s.upstream_grows << ", releases " << s.upstream_releases << ", trims "
      << s.trims << ", oom retries " << s.oom_retries << ", refused " << s.failures << ", cap rejections "
      << s.cap_rejections << "\n";
  out << "  allocation latency p50 " << s.latency_p50_us << " us, p99 " << s.latency_p99_us << " us; slow paths "
      << s.slow_paths << " (larger blocks " << s.larger_reuses << "), grown ahead " << s.grown_ahead << ", p50 " << s.slow_latency_p50_us << " us, p99 "
      << s.slow_latency_p99_us << " us; growths p50 " << s.growth_latency_p50_us << " us, p99 "
      << s.growth_latency_p99_us << " us\n";
  out << "  fragmentation: internal " << 100.0 * s.internal_fragmentation() << "%, cached-unused "
      << 100.0 * s.cached_unused_fraction() << "%, external " << 100.0 * s.external_fragmentation() << "%\n";
  for (auto const& c : s.classes) {
    if (c.hits + c.misses == 0 && c.cached_blocks == 0) continue;
    out << "  class " << std::setw(10) << c.size << " B: hits " << c.hits << ", misses " << c.misses << ", live "
        << c.live_blocks << ", cached " << c.cached_blocks << "\n";
  }
  out.flags(f);
}

}  // namespace mcprice
