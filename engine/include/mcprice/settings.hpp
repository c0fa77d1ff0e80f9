#pragma once
// What a caller may set for a run. Settings that cannot change the numbers (threads, grid,
// streams, job cap) are separate in kind from those that do (paths, seed): see docs/determinism.md.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace mcprice {

enum class backend_choice { automatic, gpu, cpu };
// Where per-job GPU scratch comes from (docs/memory.md): cudaMalloc per request, the device's
// default pool, an explicit pool of our own, or the bucketed scratch pool over it (default).
enum class allocator_kind { malloc, async_default, pool, bucketed };
// How a GPU job prices: fused (simulate and pay off in registers) or two-phase (paths stored in
// path scratch, payoffs in payoff scratch, then reduced). Both give the same bits; automatic
// picks fused where no product needs stored paths.
enum class kernel_route { automatic, fused, two_phase };
enum class backend_kind { cpu, gpu };
// The arithmetic of a path (docs/precision.md): float with double accumulation (the default,
// and the fast one), or double throughout, for validation and for desks that require it.
enum class path_precision { float32, float64 };
// Where a path's normals come from: Philox pseudo-random numbers, or randomised quasi-Monte
// Carlo (Owen-scrambled Sobol points with a Brownian bridge; docs/quasi-monte-carlo.md).
enum class rng_kind { pseudo, sobol };
// Whether a GPU request's device work (upload, kernels, reduction, copy-back) is captured once
// per shape as a CUDA graph and replayed (docs/graphs.md). The same bits either way. auto: off
// until a measurement on the device says where graphs are faster.
enum class graph_mode { automatic, on, off };

struct engine_options {
  // Change the numbers:
  std::int64_t paths{1'000'000};  // per trade, unless the trade's row says otherwise
  std::int64_t steps{252};        // path-dependent products; europeans step exactly to T
  std::uint64_t seed{42};
  rng_kind rng{rng_kind::pseudo};
  // --rng sobol: independent scramblings; price = their mean, std_error = their standard
  // deviation / sqrt(R), paths = their total (each rounded up to a power of two).
  int rqmc_replicates{32};
  bool antithetic{true};        // each normal draw prices the paths of Z and -Z; std errors use pairs
  bool control_variates{true};  // arithmetic Asians under GBM: the geometric-average control
  // Delta, gamma, vega, theta and rho in the same pass as the price (docs/greeks.md). Prices
  // keep their bits; Greeks are as reproducible as prices.
  bool greeks{false};
  // American and Bermudan trades: paths of the regression that sets the exercise policy (their
  // own random stream, separate from the pricing paths); 0 = the trade's paths, up to 131,072.
  std::int64_t calibration_paths{0};
  path_precision precision{path_precision::float32};
  // Never change the numbers:
  backend_choice backend{backend_choice::automatic};
  unsigned threads{0};  // CPU backend: 0 = all cores
  int device{0};        // GPU ordinal
  // Several GPUs in one process (--devices): the book is split across them by estimated cost
  // (work_split.hpp, docs/scale-out.md), each with its own context, streams, scratch pool and
  // copy of the market. Empty: `device` alone. An ordinal may repeat (two engines share a GPU).
  std::vector<int> devices;
  bool every_device{false};      // --devices all: every usable GPU (overrides `devices`)
  int streams{0};                // 0 = chosen from the device
  std::size_t job_cap_bytes{0};  // scratch one job may hold; 0 = no cap
  // GPU: load every kernel the options may launch when the engine is built (0.64 s on an H100).
  // false: each loads at its first launch, so construction takes 2 ms and a request pays only
  // for its own families' modules; but a first launch beside running kernels waits for them
  // and holds the context meanwhile (3 s on a large book with Greeks, so a stop waits too:
  // docs/reliability.md). For callers who price one family at a time and want a fast start.
  bool preload_kernels{true};
  allocator_kind allocator{allocator_kind::bucketed};
  std::size_t pool_limit_bytes{0};  // most scratch bytes held from the device; 0 = no limit
  int grid_blocks{0};               // GPU grid override, 0 = tuned
  kernel_route route{kernel_route::automatic};
  graph_mode graphs{graph_mode::automatic};
  // The captured graphs' cache (graphs on): at most this many instantiated graphs and bytes held
  // for them (staging, device buffers, their scratch), least recently used out.
  std::size_t graph_cache_entries{64};
  std::size_t graph_cache_bytes{std::size_t{256} << 20};
  // GPU books of at least 3 x this many trades go as a pipeline of chunks (host preparation of
  // one chunk overlapping the GPU's pricing of the last); 0 = never.
  std::size_t pipeline_chunk_trades{128};
  // Batching across callers (docs/graphs.md): a call from another thread that arrives while the
  // engine is already pricing waits up to this many microseconds for more calls, and all of them
  // are priced as one book, each caller getting its own rows with their own bits; 0 = never. A
  // call with no other in flight never waits. A batched call's progress counts the batch's
  // samples, and its cancel flag returns it at once (engine::price). A batch closes at once when
  // it holds batch_max_trades trades.
  std::int64_t batch_window_us{0};
  std::size_t batch_max_trades{4096};
  // The bucketed pool's size classes (docs/memory.md; price-batch --memory-settings, which
  // --suggest-budget writes from recorded profiles): 0 keeps each default (64 KiB to 1 GiB, 4
  // classes per doubling).
  std::size_t size_class_min_bytes{0};
  std::size_t size_class_max_bytes{0};
  int size_classes_per_doubling{0};
  // Record every scratch allocation of the GPU backend into an allocation profile
  // (memory_report::profile; price-batch --memory-profile): a lock and a record an allocation.
  bool record_allocations{false};
  // Record where the call's time went in run_summary::timeline: host phases per chunk and, on
  // the GPU, when each job's work ran (two timing events a job, read after the request).
  bool timeline{false};
};

// The largest path count one trade may ask for.
inline constexpr std::int64_t max_paths_per_trade = 10'000'000'000LL;

}  // namespace mcprice
