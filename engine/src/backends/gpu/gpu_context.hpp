#pragma once
// Everything the GPU backend holds for the engine's lifetime: the device, its streams, the
// scratch memory resource chosen by the options (with mapped pages, or an explicit driver pool,
// and event ordering beneath the bucketed pool), caches for request-lifetime buffers, and the market data in
// GPUDirect-safe buffers, uploaded once on its own stream.
#include "mcprice/kernels/models/local_vol_path.hpp"
#include "mcprice/market.hpp"
#include "mcprice/memory/allocation_profile.hpp"
#include "mcprice/memory/bucketed_pool_resource.hpp"
#include "mcprice/memory/buffer_cache.hpp"
#include "mcprice/memory/cuda_resources.hpp"
#include "mcprice/memory/gpudirect_buffer.hpp"
#include "mcprice/memory/mapped_page_resource.hpp"
#include "mcprice/memory/pinned_buffer.hpp"
#include "mcprice/memory/scratch_gate.hpp"
#include "mcprice/memory/statistics_resource.hpp"
#include "mcprice/memory/stream_pool.hpp"
#include "mcprice/memory_report.hpp"
#include "mcprice/settings.hpp"

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mcprice::detail {

class gpu_context {
 public:
  gpu_context(const engine_options& options, const market_data& market, std::vector<std::string>& notices);
  ~gpu_context();

  [[nodiscard]] int device() const noexcept { return device_; }
  [[nodiscard]] stream_view next_stream() noexcept { return streams_.next(); }
  [[nodiscard]] int stream_count() const noexcept { return streams_.size(); }
  // Requests' trade tables go up on a stream of their own: on a pool stream the copy would
  // queue behind another request's kernels, and every job of the request behind it.
  [[nodiscard]] stream_view upload_stream() const noexcept { return uploads_.view(); }
  // Stop words go down on a stream of their own, which no kernel is queued on and which waits
  // for nothing, so a stop lands while the kernels run. Made with the context: a stream made at
  // the moment of a stop waited with every other call the driver held (docs/reliability.md).
  [[nodiscard]] stream_view stop_stream() const noexcept { return stops_.view(); }
  // Sets a stop word: 1 into its pinned staging, then that word copied to the device's on the
  // stop stream.
  void send_stop(unsigned int* device_word, unsigned int* host_word) const;
  // Events for ordering a request's streams, recycled across requests.
  [[nodiscard]] stream_ordering& events() noexcept { return events_; }
  [[nodiscard]] memory_resource& scratch() noexcept { return *scratch_; }
  // Admission under --pool-limit (every allocator); null without a limit.
  [[nodiscard]] scratch_gate* gate() noexcept { return gate_.budget() != 0 ? &gate_ : nullptr; }
  // The user's --pool-limit, and what the gate admits under it (over pages, a little less:
  // gpu_context::map_pages).
  [[nodiscard]] std::size_t pool_limit() const noexcept { return pool_limit_; }
  [[nodiscard]] std::size_t scratch_budget() const noexcept { return gate_.budget(); }
  // engine_options::record_allocations: where the jobs' leases record; null otherwise.
  [[nodiscard]] allocation_recorder* recorder() noexcept { return recorder_.get(); }
  void note_job_retry() noexcept { ++job_retries_; }
  // Requests with work queued on the device (job_runner::run), counted so that a launch which
  // would wait for every running kernel (a cooperative one) is made only while there is none.
  class request_in_flight {
   public:
    explicit request_in_flight(gpu_context& ctx) noexcept : ctx_(ctx) { ++ctx_.requests_in_flight_; }
    ~request_in_flight() { --ctx_.requests_in_flight_; }
    request_in_flight(const request_in_flight&) = delete;
    request_in_flight& operator=(const request_in_flight&) = delete;

   private:
    gpu_context& ctx_;
  };
  [[nodiscard]] bool requests_in_flight() const noexcept { return requests_in_flight_.load() > 0; }
  void note_cap_rejection() noexcept;
  // The market's local-vol grids (market/market_surfaces.hpp) in the market buffers.
  template <typename Real>
  [[nodiscard]] const basic_vol_pair<Real>* surfaces() const noexcept
  {
    return static_cast<const basic_vol_pair<Real>*>(sizeof(Real) == sizeof(float) ? surfaces_f32_ : surfaces_f64_);
  }
  // --rng sobol: the direction table in device memory (uploaded with the market); else null.
  [[nodiscard]] const std::uint32_t* sobol_directions() const noexcept
  {
    return static_cast<const std::uint32_t*>(sobol_table_.data());
  }
  [[nodiscard]] buffer_cache<cuda_malloc_traits>& request_buffers() noexcept { return device_cache_; }
  [[nodiscard]] buffer_cache<pinned_host_traits>& staging() noexcept { return pinned_cache_; }
  [[nodiscard]] memory_report report() const;
  void trim();

 private:
  void make_bucketed(const engine_options& o, std::vector<std::string>& notices);
  memory_resource* map_pages(const engine_options& o, bucketed_pool_options& bo, std::vector<std::string>& notices);

  int device_;
  stream_pool streams_;
  stream uploads_;
  stream stops_;
  cuda_event_ordering events_;
  std::string allocator_name_;
  std::unique_ptr<explicit_pool_resource> pool_;
  std::unique_ptr<cuda_event_ordering> ordering_;
  std::unique_ptr<page_driver> page_driver_;
  std::unique_ptr<mapped_page_resource> pages_;  // beneath the bucketed pool where pages map; else pool_
  std::unique_ptr<bucketed_pool_resource> bucketed_;
  std::unique_ptr<allocation_recorder> recorder_;
  std::unique_ptr<memory_resource> simple_;       // malloc or async-default
  std::unique_ptr<statistics_resource> counted_;  // over simple_ or the plain pool: requested bytes, latency
  memory_resource* scratch_{nullptr};
  std::size_t pool_limit_;
  scratch_gate gate_;
  std::atomic<std::uint64_t> job_retries_{0};
  std::atomic<int> requests_in_flight_{0};
  buffer_cache<cuda_malloc_traits> device_cache_;
  buffer_cache<pinned_host_traits> pinned_cache_;
  gpudirect_buffer market_rdma_;
  device_buffer market_plain_;   // only when the system refuses GPUDirect attributes
  device_buffer sobol_table_;    // --rng sobol only
  std::size_t market_bytes_{0};  // the flat market and the local-vol grids
  const void* surfaces_f32_{nullptr};
  const void* surfaces_f64_{nullptr};
  std::string market_note_;
};

}  // namespace mcprice::detail
