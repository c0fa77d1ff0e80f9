// The statistics adaptor over allocators without statistics of their own, and the latency ring
// behind every allocation-latency figure, on the fake device.
#include "mcprice/memory/statistics_resource.hpp"
#include "catch.hpp"
#include "fake_device.hpp"
#include "mcprice/memory/latency_histogram.hpp"

#include <cmath>
#include "mcprice/memory/memory_errors.hpp"

#include <mutex>
#include <thread>
#include <vector>

using namespace mcprice;
using namespace mcprice::testing;

TEST_CASE("the statistics adaptor counts live and peak requested bytes, allocations and failures")
{
  fake_upstream up;
  up.capacity = 10'000;
  statistics_resource counted(up);
  CHECK(counted.name() == "fake");
  void* a = counted.allocate(3000, fake_stream(1));
  void* b = counted.allocate(5000, fake_stream(2));
  CHECK(counted.statistics().requested == 8000);
  counted.deallocate(a, 3000, fake_stream(1));
  CHECK_THROWS_AS(counted.allocate(6000, fake_stream(1)), out_of_memory);  // 5000 + 6000 > capacity
  auto s = counted.statistics();
  CHECK(s.requested == 5000);
  CHECK(s.requested_peak == 8000);
  CHECK(s.allocations == 2);
  CHECK(s.failures == 1);
  CHECK(s.latency_p99_us >= s.latency_p50_us);
  counted.reset_peak();
  CHECK(counted.statistics().requested_peak == 5000);
  counted.deallocate(b, 5000, fake_stream(2));
  CHECK(counted.statistics().requested == 0);
  CHECK(up.live_bytes == 0);
}

namespace {

// The fake device is single-threaded; real upstreams are thread-safe, as this makes it.
class locked_upstream final : public memory_resource {
 public:
  fake_upstream inner;

 private:
  void* do_allocate(std::size_t bytes, stream_view s) override
  {
    std::lock_guard<std::mutex> lock(mutex_);
    return inner.allocate(bytes, s);
  }
  void do_deallocate(void* p, std::size_t bytes, stream_view s) noexcept override
  {
    std::lock_guard<std::mutex> lock(mutex_);
    inner.deallocate(p, bytes, s);
  }
  [[nodiscard]] std::string do_name() const override { return "locked fake"; }
  std::mutex mutex_;
};

}  // namespace

TEST_CASE("the statistics adaptor keeps exact counts under concurrent callers", "[concurrency]")
{
  locked_upstream up;
  statistics_resource counted(up);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&counted, t] {
      for (int i = 0; i < 500; ++i) {
        void* p = counted.allocate(256, fake_stream(t + 1));
        counted.deallocate(p, 256, fake_stream(t + 1));
      }
    });
  }
  for (auto& th : threads) th.join();
  auto const s = counted.statistics();
  CHECK(s.allocations == 2000);
  CHECK(s.requested == 0);
  CHECK(s.requested_peak >= 256);
  CHECK(s.requested_peak <= 4 * 256);
}

TEST_CASE("the latency histogram's percentiles are order statistics to within half a bin")
{
  latency_histogram h;
  CHECK(h.percentile(0.5) == 0.0);
  for (int i = 1; i <= 101; ++i) h.record(static_cast<double>(i));
  double const half_bin = std::exp2(0.5 / latency_histogram::bins_per_doubling);  // 2.2%
  auto const near = [&](double got, double want) { return got <= want * half_bin && got >= want / half_bin; };
  CHECK(near(h.percentile(0.0), 1.0));
  CHECK(near(h.percentile(0.5), 51.0));
  CHECK(near(h.percentile(0.99), 100.0));
  CHECK(near(h.percentile(1.0), 101.0));
  CHECK(h.count() == 101);
  // It counts every sample since construction: 10,000 more at 1 ms move the median there.
  for (int i = 0; i < 10000; ++i) h.record(1000.0);
  CHECK(near(h.percentile(0.5), 1000.0));
  CHECK(near(h.percentile(0.005), 51.0));
  h.record(1e-6);  // below the lowest bin, and beyond the top one: counted at the ends
  h.record(1e12);
  CHECK(h.percentile(0.0) < latency_histogram::lowest_us);
  CHECK(h.percentile(1.0) > 1e7);
}
