// mcprice-profile-replay: replays a recorded allocation profile (price-batch --memory-profile)
// through the bucketed pool over mapped pages on a simulated device, with no GPU. Each
// allocation and free happens at its recorded host time on its recorded stream; the simulated
// device passes a stream's marks `--lag-us` after they were recorded, in stream order. The
// pool's upkeep round runs every `--upkeep-us` of the replay's clock, as its thread would.
//
// What it reports is what the pool decides, not how long it takes: slow paths, growths, blocks
// grown ahead, larger blocks taken, event waits, host waits, page mappings and unmappings, and
// what is held against what was requested. Policies are compared here on real traffic before a
// device call measures their time.
//
// The pages' idle release runs on the host's clock, not the replay's: a replay is faster than
// the run it replays, so an idle page ages less here than it did there.
//
//   mcprice-profile-replay PROFILE.json [--lag-us 500] [--upkeep-us 100] [--headroom 1.0]
//                          [--idle-release-s 1.0] [--move-idle-pages 1] [--give-back-pending 0]
#include "mcprice/memory/bucketed_pool_resource.hpp"
#include "mcprice/memory/mapped_page_resource.hpp"
#include "memory_budget.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

namespace {

using namespace mcprice;

double now_s = 0.0;  // the replay's clock

class simulated_ordering final : public stream_ordering {
 public:
  double lag_s{0.0005};
  std::uint64_t waits{0};
  std::uint64_t host_waits{0};
  std::uint64_t polls{0};

  order_token record(stream_view s) override
  {
    double& last = stream_last_[s.value()];
    last = std::max(last, now_s + lag_s);
    passes_.push_back(last);
    return passes_.size();
  }
  void wait(stream_view, order_token) override { ++waits; }
  void release(order_token) noexcept override {}
  void synchronize(order_token t) override
  {
    ++host_waits;
    passes_[t - 1] = std::min(passes_[t - 1], now_s);
  }
  bool passed(order_token t) override
  {
    ++polls;
    return passes_[t - 1] <= now_s;
  }

 private:
  std::vector<double> passes_;
  std::map<cudaStream_t, double> stream_last_;
};

class simulated_pages final : public page_driver {
 public:
  std::uint64_t maps{0};
  std::uint64_t unmaps{0};
  std::uint64_t created{0};
  std::uint64_t released{0};

  [[nodiscard]] std::size_t page_size() const noexcept override { return std::size_t{2} << 20; }
  device_address reserve(std::size_t) override { return device_address{1} << 40; }
  void unreserve(device_address, std::size_t) noexcept override {}
  page_handle create_page() override { return ++created; }
  void release_page(page_handle) noexcept override { ++released; }
  void map(device_address, page_handle) override { ++maps; }
  void allow_access(device_address, std::size_t) override {}
  void unmap(device_address) noexcept override { ++unmaps; }
};

struct event {
  double t;
  bool alloc;
  std::size_t record;
};

double option(int argc, char** argv, const std::string& name, double fallback)
{
  for (int i = 2; i + 1 < argc; ++i) {
    if (argv[i] == name) return std::atof(argv[i + 1]);
  }
  return fallback;
}

}  // namespace

int main(int argc, char** argv)
{
  if (argc < 2) {
    std::fprintf(stderr, "usage: mcprice-profile-replay PROFILE.json [--lag-us N] [--upkeep-us N] [--headroom H] "
                 "[--idle-release-s S] [--move-idle-pages 0|1] [--give-back-pending 0|1]\n");
    return 1;
  }
  allocation_profile const profile = cli::read_profile(argv[1]);
  simulated_ordering ordering;
  ordering.lag_s = option(argc, argv, "--lag-us", 500.0) * 1e-6;
  double const upkeep_s = option(argc, argv, "--upkeep-us", engine_pool_options().upkeep_interval_us) * 1e-6;
  simulated_pages driver;
  mapped_page_options page_options = engine_page_options();  // its idle time on the host's clock
  page_options.idle_release_s = option(argc, argv, "--idle-release-s", page_options.idle_release_s);
  page_options.move_idle_pages = option(argc, argv, "--move-idle-pages", page_options.move_idle_pages ? 1 : 0) != 0.0;
  mapped_page_resource pages(driver, ordering, page_options);
  bucketed_pool_options o = over_mapped_pages(engine_pool_options());
  o.upkeep_interval_us = 0;  // no thread: the replay runs the upkeep's rounds on its own clock
  o.headroom = option(argc, argv, "--headroom", o.headroom);
  o.give_back_pending = option(argc, argv, "--give-back-pending", o.give_back_pending ? 1 : 0) != 0.0;
  o.classes.page_bytes = driver.page_size();
  bucketed_pool_resource pool(pages, ordering, o);

  std::vector<event> events;
  for (std::size_t i = 0; i < profile.allocations.size(); ++i) {
    auto const& r = profile.allocations[i];
    events.push_back({r.allocated_at, true, i});
    if (r.freed_at >= 0.0) events.push_back({r.freed_at, false, i});
  }
  std::stable_sort(events.begin(), events.end(), [](const event& a, const event& b) { return a.t < b.t; });
  std::vector<void*> where(profile.allocations.size(), nullptr);
  double next_upkeep = 0.0;
  mapped_page_usage at_peak;  // the pages, and the pool above them, when the most was held
  pool_statistics pool_at_peak;
  for (auto const& e : events) {
    now_s = e.t;
    while (upkeep_s > 0.0 && next_upkeep <= now_s) {
      pool.upkeep();
      next_upkeep += upkeep_s;
    }
    auto const& r = profile.allocations[e.record];
    stream_view const s{reinterpret_cast<cudaStream_t>(static_cast<std::uintptr_t>(r.stream))};
    if (e.alloc) where[e.record] = pool.allocate(r.bytes, s);
    else pool.deallocate(where[e.record], r.bytes, s);
    if (e.alloc) {
      auto const now = pages.usage();
      if (now.held > at_peak.held) {
        at_peak = now;
        pool_at_peak = pool.statistics();
      }
    }
  }
  auto const st = pool.statistics();
  auto const u = pages.usage();
  auto const mib = [](std::size_t b) { return static_cast<double>(b) / (1024.0 * 1024.0); };
  std::printf("allocations %llu, slow paths %llu (%.2f%%), growths %llu, grown ahead %llu, larger blocks %llu\n",
              static_cast<unsigned long long>(st.allocations), static_cast<unsigned long long>(st.slow_paths),
              100.0 * static_cast<double>(st.slow_paths) / static_cast<double>(std::max<std::uint64_t>(1, st.allocations)),
              static_cast<unsigned long long>(st.upstream_grows), static_cast<unsigned long long>(st.grown_ahead),
              static_cast<unsigned long long>(st.larger_reuses));
  std::printf("event waits %llu, host waits %llu, polls %llu; page maps %llu, unmaps %llu, created %llu, released %llu\n",
              static_cast<unsigned long long>(ordering.waits), static_cast<unsigned long long>(ordering.host_waits),
              static_cast<unsigned long long>(ordering.polls), static_cast<unsigned long long>(driver.maps),
              static_cast<unsigned long long>(driver.unmaps), static_cast<unsigned long long>(driver.created),
              static_cast<unsigned long long>(driver.released));
  std::printf("held peak %.1f MiB for a requested peak of %.1f MiB (%.2fx; needed peak %.1f MiB, reserved peak %.1f)\n",
              mib(u.held_peak), mib(st.requested_peak),
              static_cast<double>(u.held_peak) / static_cast<double>(std::max<std::size_t>(1, st.requested_peak)),
              mib(st.needed_peak), mib(st.reserved_peak));
  std::printf("in use on the device at peak %.1f MiB (held %.2fx it)\n", mib(st.device_requested_peak),
              static_cast<double>(u.held_peak) / static_cast<double>(std::max<std::size_t>(1, st.device_requested_peak)));
  std::printf("at the held peak: pages mapped %.1f MiB (idle %.1f), spare %.1f, live blocks %.1f, pending frees %zu; "
              "pool reserved %.1f, allocated %.1f, requested %.1f, in use on the device %.1f\n",
              mib(at_peak.mapped), mib(at_peak.idle), mib(at_peak.spare), mib(at_peak.live_bytes),
              at_peak.pending_frees, mib(pool_at_peak.reserved), mib(pool_at_peak.allocated),
              mib(pool_at_peak.requested), mib(pool_at_peak.device_requested));
  return 0;
}
