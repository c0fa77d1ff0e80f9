#include "backends/gpu/gpu_context.hpp"

#include "market/market_snapshot.hpp"
#include "market/market_surfaces.hpp"
#include "mcprice/kernels/rng/host_sobol_stream.hpp"
#include "mcprice/memory/cuda_error.hpp"
#include "mcprice/memory/page_driver.hpp"

#include <cstring>

namespace mcprice::detail {
namespace {
constexpr int default_streams = 4;

int select_device(int device)
{
  MCPRICE_CUDA_TRY(cudaSetDevice(device));
  return device;
}
}  // namespace

gpu_context::gpu_context(const engine_options& o, const market_data& market, std::vector<std::string>& notices)
    : device_(select_device(o.device)), streams_(o.streams > 0 ? o.streams : default_streams),
      pool_limit_(o.pool_limit_bytes),
      gate_(o.pool_limit_bytes)
{
  switch (o.allocator) {
    case allocator_kind::malloc:
      simple_ = std::make_unique<cuda_malloc_resource>();
      counted_ = std::make_unique<statistics_resource>(*simple_);
      scratch_ = counted_.get();
      break;
    case allocator_kind::async_default:
      simple_ = std::make_unique<default_pool_resource>();
      counted_ = std::make_unique<statistics_resource>(*simple_);
      scratch_ = counted_.get();
      break;
    case allocator_kind::pool: {
      explicit_pool_options po;
      po.device = o.device;
      po.max_size = o.pool_limit_bytes;  // the plain pool's own maximum is the limit
      pool_ = std::make_unique<explicit_pool_resource>(po);
      counted_ = std::make_unique<statistics_resource>(*pool_);
      scratch_ = counted_.get();
      break;
    }
    case allocator_kind::bucketed:
      make_bucketed(o, notices);
      break;
  }
  allocator_name_ = scratch_->name();
  if (o.record_allocations) recorder_ = std::make_unique<allocation_recorder>();

  // Market data enters through GPUDirect-safe buffers, uploaded once from pinned staging on a
  // stream of its own, and construction waits for it: no request's stream then needs to wait
  // on the market, a driver call each request saves. The local-vol grids go with it (float, then
  // double: 256-byte aligned parts), so no request uploads a grid.
  std::vector<double> const flat = flatten_market(market);
  market_surfaces const grids(market);
  auto const aligned = [](std::size_t b) { return (b + 255) / 256 * 256; };
  std::size_t const f32_at = aligned(flat.size() * sizeof(double));
  std::size_t const f64_at = aligned(f32_at + sizeof(grids.f32[0]) * grids.f32.size());
  market_bytes_ = f64_at + sizeof(grids.f64[0]) * grids.f64.size();
  void* target = nullptr;
  try {
    market_rdma_ = gpudirect_buffer(market_bytes_);
    target = market_rdma_.data();
  } catch (const std::exception& e) {
    market_note_ = e.what();
    notices.push_back(std::string("market buffers are not GPUDirect RDMA capable here: ") + e.what());
    market_plain_ = device_buffer(market_bytes_);
    target = market_plain_.data();
  }
  stream const upload;
  pinned_buffer staging(market_bytes_);
  auto* staged = static_cast<unsigned char*>(staging.data());
  std::memcpy(staged, flat.data(), flat.size() * sizeof(double));
  if (!grids.f32.empty()) {
    std::memcpy(staged + f32_at, grids.f32.data(), sizeof(grids.f32[0]) * grids.f32.size());
    std::memcpy(staged + f64_at, grids.f64.data(), sizeof(grids.f64[0]) * grids.f64.size());
  }
  surfaces_f32_ = static_cast<const unsigned char*>(target) + f32_at;
  surfaces_f64_ = static_cast<const unsigned char*>(target) + f64_at;
  MCPRICE_CUDA_TRY(
      cudaMemcpyAsync(target, staging.as<double>(), market_bytes_, cudaMemcpyHostToDevice, upload.value()));
  if (o.rng == rng_kind::sobol) {
    // Persistent like the market: the direction numbers' nibble tables (9.8 MiB), read by every
    // Sobol stream.
    std::size_t const bytes = sizeof(std::uint32_t) * rng::sobol_dimensions * rng::sobol_nibble_words;
    sobol_table_ = device_buffer(bytes);
    MCPRICE_CUDA_TRY(
        cudaMemcpyAsync(sobol_table_.data(), rng::sobol_nibble_table(), bytes, cudaMemcpyHostToDevice, upload.value()));
  }
  upload.synchronize();  // requests read the market without a wait; the staging goes out of scope next
}

// The bucketed pool over pages it maps itself, where the device has virtual memory management:
// what it holds from the driver is then exactly its pages, and a limit bounds them. Elsewhere
// it sits over an explicit driver pool, which maps 32 MiB chunks and keeps them while any block
// in them is live (so under a limit it held 1.4-1.8x the limit, docs/memory.md).
void gpu_context::make_bucketed(const engine_options& o, std::vector<std::string>& notices)
{
  ordering_ = std::make_unique<cuda_event_ordering>();
  bucketed_pool_options bo = engine_pool_options();
  bo.limit_bytes = o.pool_limit_bytes;
  if (o.size_class_min_bytes != 0) bo.classes.min_bytes = o.size_class_min_bytes;
  if (o.size_class_max_bytes != 0) bo.classes.max_bytes = o.size_class_max_bytes;
  if (o.size_classes_per_doubling != 0) bo.classes.per_doubling = o.size_classes_per_doubling;
  memory_resource* upstream = map_pages(o, bo, notices);
  if (upstream == nullptr) {
    explicit_pool_options po;
    po.device = o.device;
    // Not the limit: the bucketed pool enforces it itself, trimming and retrying in stream order;
    // the driver would refuse memory whose frees are still queued on another stream.
    po.max_size = 0;
    // Opportunistic reuse: memory given back on one stream serves the next growth on another.
    po.opportunistic_reuse = true;
    // The driver pool keeps nothing the bucketed pool gave back: one cache.
    po.release_threshold = 0;
    pool_ = std::make_unique<explicit_pool_resource>(po);
    upstream = pool_.get();
  }
  bucketed_ = std::make_unique<bucketed_pool_resource>(*upstream, *ordering_, bo);
  scratch_ = bucketed_.get();
}

// The mapped pages beneath the bucketed pool, with its settings for them; null (and a notice)
// where the device cannot map pages. Under a limit the pages are held to it, and the pool and
// the scratch gate to a little less (pool_limit_under_pages): the difference is for the pages
// that blocks of different sizes share only in part.
memory_resource* gpu_context::map_pages(const engine_options& o, bucketed_pool_options& bo,
                                        std::vector<std::string>& notices)
{
  try {
    page_driver_ = make_cuda_page_driver(o.device);
    std::size_t free_bytes = 0;
    std::size_t total_bytes = 0;
    MCPRICE_CUDA_TRY(cudaMemGetInfo(&free_bytes, &total_bytes));
    mapped_page_options mo = engine_page_options();
    mo.limit_bytes = o.pool_limit_bytes;
    mo.range_bytes = 2 * total_bytes;  // each zone (small blocks, whole pages) as large as the device
    pages_ = std::make_unique<mapped_page_resource>(*page_driver_, *ordering_, mo);
  } catch (const std::exception& e) {
    notices.push_back(std::string("scratch sits over a driver pool (no mapped pages here): ") + e.what());
    page_driver_.reset();
    return nullptr;
  }
  bo = over_mapped_pages(bo);
  bo.classes.page_bytes = page_driver_->page_size();
  if (o.pool_limit_bytes != 0) {
    bo.limit_bytes = pool_limit_under_pages(o.pool_limit_bytes, page_driver_->page_size());
    gate_.set_budget(bo.limit_bytes);
  }
  return pages_.get();
}

gpu_context::~gpu_context()
{
  // Every request has finished (they wait for their results); drain the streams so the pool's
  // cached blocks can be returned safely.
  for (int i = 0; i < streams_.size(); ++i) MCPRICE_CUDA_TRY_NOTHROW(cudaStreamSynchronize(streams_.at(i).value()));
}

void gpu_context::note_cap_rejection() noexcept
{
  if (bucketed_) bucketed_->note_cap_rejection();
}

void gpu_context::send_stop(unsigned int* device_word, unsigned int* host_word) const
{
  *static_cast<volatile unsigned int*>(host_word) = 1U;
  MCPRICE_CUDA_TRY(
      cudaMemcpyAsync(device_word, host_word, sizeof(unsigned int), cudaMemcpyHostToDevice, stops_.value()));
}

void gpu_context::trim()
{
  if (bucketed_) bucketed_->trim();  // frees on the default stream
  MCPRICE_CUDA_TRY(cudaStreamSynchronize(nullptr));
  if (pool_) pool_->trim_to(0);
  if (pages_) pages_->release_unused(0);
}

memory_report gpu_context::report() const
{
  memory_report r;
  r.allocator = allocator_name_;
  if (bucketed_) r.scratch = bucketed_->statistics();
  if (pool_) r.driver = pool_->driver_usage();
  if (pages_) {
    r.pages = pages_->usage();
    // The load test's driver columns read the pages: held as reserved, mapped as used.
    r.driver = driver_pool_usage{r.pages->held, r.pages->held_peak, r.pages->mapped, r.pages->mapped_peak};
  }
  if (auto const* simple = dynamic_cast<const default_pool_resource*>(simple_.get())) r.driver = simple->driver_usage();
  if (counted_) r.requests = counted_->statistics();
  if (recorder_) r.profile = recorder_->snapshot();
  if (r.driver) {
    r.held_bytes = r.driver->reserved_current;
    r.held_peak = r.driver->reserved_high;
  } else if (r.requests) {
    r.held_bytes = r.requests->requested;
    r.held_peak = r.requests->requested_peak;
  }
  if (gate_.budget() != 0) r.gate = gate_.statistics();
  r.job_retries = job_retries_.load();
  r.streams_busy = 0;
  for (int i = 0; i < streams_.size(); ++i) {
    cudaError_t const e = cudaStreamQuery(streams_.at(i).value());
    if (e == cudaErrorNotReady) ++r.streams_busy;
    else if (e != cudaSuccess) throw cuda_error(e, "cudaStreamQuery", __FILE__, __LINE__);
  }
  r.market_bytes = market_bytes_;
  r.table_bytes = sobol_table_.size();
  r.market_rdma_capable = market_note_.empty();
  r.market_note = market_note_;
  return r;
}

}  // namespace mcprice::detail
