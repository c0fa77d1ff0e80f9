#include "exercise_blocks.cuh"
#include "mcprice/kernels/exercise/regression_solve.cuh"
#include "mcprice/kernels/launch/canonical_blocks.cuh"
#include "mcprice/kernels/launch/exercise.hpp"
#include "mcprice/kernels/launch/stream_choice.cuh"

#include <cooperative_groups.h>

#include "mcprice/kernels/launch/kernel_module.cuh"
#include <algorithm>
#include <stdexcept>
#include <string>

namespace mcprice::kernels {

MCPRICE_KERNEL_MODULE(kernel_group::exercise)
namespace {

// visit(trade, block within the trade, family block) for the job's calibration blocks; a CUDA
// block of lanes_per_block threads per calibration block, one path a thread.
template <typename Visit>
__device__ __forceinline__ void for_calibration_blocks(const exercise_trade* trades, const calibration_start* starts,
                                                       int num_trades, std::int64_t first, std::int64_t end,
                                                       const unsigned int* stop, Visit visit)
{
  for (std::int64_t b = first + blockIdx.x; b < end; b += gridDim.x) {
    if (__syncthreads_or(threadIdx.x == 0 && detail::stop_asked(stop))) break;
    exercise_trade const t = trades[detail::trade_of_block_by_thread(starts, num_trades, b)];
    visit(t, b - t.first_calibration_block, b);
  }
}

// Calibration paths are stored, never summed, so a CUDA block may take part of a calibration
// block: quarter blocks spread a small job over every SM (25,000 paths are 98 blocks of 256,
// which as whole blocks ran on 98 of 132 SMs, eight warps each). Where a path runs never
// changes what it stores.
constexpr int path_threads = 64;
constexpr int path_parts = calibration_paths_per_block / path_threads;

template <typename Stream>
__global__ void __launch_bounds__(path_threads)
    calibration_paths_kernel(const exercise_trade* __restrict__ trades, const calibration_start* __restrict__ starts,
                             int num_trades, exercise_tables tables, calibration_view view, std::int64_t job_end,
                             const unsigned int* stop)
{
  std::int64_t const units = (job_end - view.job_first_block) * path_parts;
  for (std::int64_t u = blockIdx.x; u < units; u += gridDim.x) {
    if (__syncthreads_or(threadIdx.x == 0 && detail::stop_asked(stop))) break;
    std::int64_t const family_block = view.job_first_block + u / path_parts;
    int const lane = static_cast<int>(u % path_parts) * path_threads + static_cast<int>(threadIdx.x);
    exercise_trade const t = trades[detail::trade_of_block_by_thread(starts, num_trades, family_block)];
    with_sized_trade(t, [&](const auto& sized) {
      simulate_calibration_path<Stream>(sized, tables, view, family_block - t.first_calibration_block, family_block,
                                        lane);
    });
  }
}

// The block's sums of one backward step, or of one part of them (sums_part): each component
// (regression_sums' doubles in order) of every lane through the warp's fixed butterfly, then the
// warps' totals in warp order, so a component has the same bits whichever part sums it. A
// lane's component is what add_terms adds to zero sums (0.0 + the term, as there: the same
// values, the same trees as materialising them), computed from its terms as it is reduced: the
// normal equations' 68 doubles a lane in local memory were a quarter of the step's stalls.
// out: the part's slots in order (sums_part::all: a regression_sums); `place` maps a slot to
// where it is stored.
template <sums_part P, typename Place>
__device__ __forceinline__ void store_block_sums(const exercise_trade& t, int step, const regression_terms& r,
                                                 double* out, Place place, double (*staged)[regression_doubles])
{
  constexpr bool products = P != sums_part::moving;  // xx and the count
  constexpr bool flows = P != sums_part::fixed;      // xy and the totals
  int const warp = static_cast<int>(threadIdx.x) / layout::lanes_per_partial;
  int const lane = static_cast<int>(threadIdx.x) % layout::lanes_per_partial;
  int slot = 0;
  auto const emit = [&](double value) {
    double const w = detail::warp_total(value);
    if (lane == 0) staged[warp][slot] = w;
    ++slot;
  };
  // A component every lane sends 0.0: the butterfly's sum is 0.0.
  auto const emit_zero = [&] {
    if (lane == 0) staged[warp][slot] = 0.0;
    ++slot;
  };
  bool const totals = step == regressions(t);  // the same for the block's lanes: one trade
  bool const terms = r.live && r.in_the_money && !totals;
  if constexpr (products) {
    MCPRICE_UNROLL
    for (int i = 0; i < max_exercise_basis; ++i) {
      MCPRICE_UNROLL
      for (int j = i; j < max_exercise_basis; ++j) {
        if (i < t.basis && j < t.basis) {
          emit(terms ? 0.0 + static_cast<double>(r.phi[i]) * static_cast<double>(r.phi[j]) : 0.0);
        }
      }
    }
    while (slot < regression_matrix_entries) emit_zero();
  }
  if constexpr (flows) {
    MCPRICE_UNROLL
    for (int i = 0; i < max_exercise_basis; ++i) {
      if (i < t.basis) emit(terms ? 0.0 + static_cast<double>(r.phi[i]) * r.cash_flow : 0.0);
      else emit_zero();
    }
  }
  if constexpr (products) emit(terms ? 1.0 : 0.0);
  if constexpr (flows) {
    double const c = r.live && totals ? r.cash_flow : 0.0;
    emit(0.0 + c);
    emit(0.0 + c * c);
  }
  __syncthreads();
  if (threadIdx.x < part_doubles<P>) {
    double s = 0.0;
    for (int w = 0; w < warps_per_block; ++w) s += staged[w][threadIdx.x];
    out[place(static_cast<int>(threadIdx.x))] = s;
  }
  __syncthreads();  // staged is reused by the next block
}

// One warp per trade and component: lane `lane` adds the trade's blocks lane, lane + 32, ... in
// order (a block's component every `stride` doubles from `sums`; read from L2, where other
// blocks' stores are), then the lanes' sums meet in the fixed butterfly; lane 0 returns the
// total. The order depends only on the trade's block count, never on how its blocks were split
// into jobs.
__device__ __forceinline__ double trade_total(const calibration_start* __restrict__ starts, int num_trades,
                                              std::int64_t total_blocks, const double* __restrict__ sums,
                                              std::int64_t stride, int i, int lane)
{
  std::int64_t const first = starts[i].first_block;
  std::int64_t const end = i + 1 < num_trades ? starts[i + 1].first_block : total_blocks;
  double s = 0.0;
  for (std::int64_t b = first + lane; b < end; b += layout::lanes_per_partial) s += __ldcg(sums + b * stride);
  return detail::warp_total(s);
}

// The moving part's totals of trades [first, end), a (trade, slot) task a warp at a time:
// totals[(trade - first) * regression_moving_doubles + slot] (shared), before a barrier.
__device__ __forceinline__ void moving_totals(const calibration_start* __restrict__ starts, int num_trades,
                                              std::int64_t total_blocks, const regression_sums* block_sums, int first,
                                              int end, double* totals)
{
  constexpr int slots = regression_moving_doubles;
  int const warp = static_cast<int>(threadIdx.x) / layout::lanes_per_partial;
  int const lane = static_cast<int>(threadIdx.x) % layout::lanes_per_partial;
  for (int task = warp; task < (end - first) * slots; task += warps_per_block) {
    int const k = task % slots;
    double const s = trade_total(starts, num_trades, total_blocks,
                                 reinterpret_cast<const double*>(block_sums) + part_component<sums_part::moving>(k),
                                 regression_doubles, first + task / slots, lane);
    if (lane == 0) totals[task] = s;
  }
}

// Trade i's fixed part of backward step `step` (regression_fixed_doubles slots).
__device__ __forceinline__ const double* fixed_part(const step_regression& out, int i, int num_trades, int step)
{
  return out.fixed_totals + (static_cast<std::int64_t>(step) * num_trades + i) * regression_fixed_doubles;
}

// The calling warp: trade i's regression of backward step `step`, its sums assembled in `sums`
// (shared) from the moving part (`moving`, regression_moving_doubles slots) and the fixed part
// (`fixed`, regression_fixed_doubles slots).
__device__ __forceinline__ void regress_split_trade(const exercise_trade& t, int i, int step, const double* moving,
                                                    const double* fixed, const step_regression& out, double* sums)
{
  int const lane = static_cast<int>(threadIdx.x % 32);
  for (int k = lane; k < regression_fixed_doubles; k += 32) sums[part_component<sums_part::fixed>(k)] = fixed[k];
  for (int k = lane; k < regression_moving_doubles; k += 32) sums[part_component<sums_part::moving>(k)] = moving[k];
  __syncwarp();
  warp_store_regression(t, step, *reinterpret_cast<const regression_sums*>(sums), out.coefficients,
                        out.continuation_today + i);
}

// The step's regressions, by the backward kernel's last block to finish (the others' block sums
// are then in memory): each warp takes (trade, slot) tasks of the moving totals in turn, then a
// warp a trade solves (`staged`: the block's staging, free again). Saves a kernel a step, and
// the host is never waited on: for small families the round trip to a host solve was most of
// the step.
__device__ __forceinline__ void fold_regressions(const exercise_trade* __restrict__ trades,
                                                 const calibration_start* __restrict__ starts, int num_trades, int step,
                                                 const regression_sums* block_sums, const folded_totals& fold,
                                                 const step_regression& out, double (*staged)[regression_doubles])
{
  constexpr int slots = regression_moving_doubles;
  __shared__ bool last;
  __shared__ double totals[max_folded_trades * slots];
  __threadfence();  // this thread's block-sum stores, before the block is counted
  __syncthreads();
  if (threadIdx.x == 0) last = atomicAdd(fold.blocks_done, 1U) == gridDim.x - 1;
  __syncthreads();
  if (!last) return;
  __threadfence();
  moving_totals(starts, num_trades, fold.total_blocks, block_sums, 0, num_trades, totals);
  __syncthreads();
  int const warp = static_cast<int>(threadIdx.x) / layout::lanes_per_partial;
  if (warp < num_trades) {
    regress_split_trade(trades[warp], warp, step, totals + warp * slots, fixed_part(out, warp, num_trades, step), out,
                        staged[warp]);
  }
  if (threadIdx.x == 0) *fold.blocks_done = 0U;  // ready for the next launch (stream-ordered after this one)
}

// Calibration blocks' sums in regression_sums' layout: every component, or the moving part alone
// (its fixed part comes from calibration_fixed_kernel), whose trade totals and regressions the
// last block then sums and solves when `fold.blocks_done` is set.
template <sums_part P>
__global__ void __launch_bounds__(policy::threads_per_block)
    calibration_backward_kernel(const exercise_trade* __restrict__ trades, const calibration_start* __restrict__ starts,
                                int num_trades, exercise_tables tables, calibration_view view, std::int64_t job_end,
                                int from_step, int step, regression_sums* block_sums, folded_totals fold,
                                step_regression out, const unsigned int* stop)
{
  __shared__ double staged[warps_per_block][regression_doubles];
  for_calibration_blocks(trades, starts, num_trades, view.job_first_block, job_end, stop,
                         [&](const exercise_trade& t, std::int64_t block, std::int64_t family_block) {
                           regression_terms const r = with_sized_trade(t, [&](const auto& sized) {
                             return backward_terms(sized, tables, view, block, family_block,
                                                   static_cast<int>(threadIdx.x), from_step, step);
                           });
                           store_block_sums<P>(
                               t, step, r, reinterpret_cast<double*>(block_sums + family_block),
                               [](int k) { return part_component<P>(k); }, staged);
                         });
  if constexpr (P == sums_part::moving) {
    if (fold.blocks_done != nullptr) fold_regressions(trades, starts, num_trades, step, block_sums, fold, out, staged);
  }
}

// Every backward step in one cooperative launch, for a resident job whose calibration blocks are
// all co-resident (a CUDA block each, at most one an SM): a step's block sums, a grid barrier,
// then every block adds its own trade's moving totals and solves its regression (the same trees
// and solve as the per-step kernels, so every block of a trade stores the same bits, and the
// result is the per-step launches' bit for bit). One barrier a step instead of a launch and a
// last-block fold, and each path's state carried between steps (carried_path).
// block_sums: two generations of the family's blocks (a fast block writes the next step's while a
// slow one still reads this step's; it cannot get two steps ahead past the barrier).
__global__ void __launch_bounds__(policy::threads_per_block)
    calibration_steps_kernel(const exercise_trade* __restrict__ trades, const calibration_start* __restrict__ starts,
                             int num_trades, exercise_tables tables, calibration_view view, std::int64_t total_blocks,
                             int steps, regression_sums* block_sums, step_regression out)
{
  __shared__ double staged[warps_per_block][regression_doubles];
  __shared__ double totals[regression_moving_doubles];
  auto grid = cooperative_groups::this_grid();
  std::int64_t const family_block = view.job_first_block + blockIdx.x;
  int const i = detail::trade_of_block_by_thread(starts, num_trades, family_block);
  exercise_trade const t = trades[i];
  std::int64_t const block = family_block - t.first_calibration_block;
  carried_path c{};
  c.cash_flow = view.cash_flows[(family_block - view.job_first_block) * calibration_paths_per_block + threadIdx.x];
  for (int step = 0; step < steps; ++step) {
    regression_sums* const sums = block_sums + (step & 1) * total_blocks;
    regression_terms const r = with_sized_trade(t, [&](const auto& sized) {
      return carried_terms(sized, tables, view, block, static_cast<int>(threadIdx.x), step, c);
    });
    store_block_sums<sums_part::moving>(
        t, step, r, reinterpret_cast<double*>(sums + family_block),
        [](int k) { return part_component<sums_part::moving>(k); }, staged);
    __threadfence();
    grid.sync();
    moving_totals(starts, num_trades, total_blocks, sums, i, i + 1, totals);
    __syncthreads();
    if (threadIdx.x < layout::lanes_per_partial)
      regress_split_trade(t, i, step, totals, fixed_part(out, i, num_trades, step), out, staged[0]);
    __syncthreads();  // the block's coefficient row, before its next decisions read it
  }
}

// The fixed part of steps [step_begin, step_end) for the job's blocks: a CUDA block per
// (step, calibration block), fixed_sums[((step - step_begin) * family blocks + family block) *
// regression_fixed_doubles + slot]. Every step at once: the paths are all stored.
__global__ void __launch_bounds__(policy::threads_per_block)
    calibration_fixed_kernel(const exercise_trade* __restrict__ trades, const calibration_start* __restrict__ starts,
                             int num_trades, exercise_tables tables, calibration_view view, std::int64_t job_end,
                             std::int64_t family_blocks, int step_begin, int step_end, double* __restrict__ fixed_sums,
                             const unsigned int* stop)
{
  __shared__ double staged[warps_per_block][regression_doubles];
  std::int64_t const blocks = job_end - view.job_first_block;
  std::int64_t const work = blocks * (step_end - step_begin);
  for (std::int64_t u = blockIdx.x; u < work; u += gridDim.x) {
    if (__syncthreads_or(threadIdx.x == 0 && detail::stop_asked(stop))) break;
    int const step = step_begin + static_cast<int>(u / blocks);
    std::int64_t const family_block = view.job_first_block + u % blocks;
    exercise_trade const t = trades[detail::trade_of_block_by_thread(starts, num_trades, family_block)];
    std::int64_t const block = family_block - t.first_calibration_block;
    regression_terms const r = with_sized_trade(t, [&](const auto& sized) {
      return fixed_terms(sized, tables, view, block, static_cast<int>(threadIdx.x), step);
    });
    double* out = fixed_sums + ((step - step_begin) * family_blocks + family_block) * regression_fixed_doubles;
    store_block_sums<sums_part::fixed>(
        t, step, r, out, [](int k) { return k; }, staged);
  }
}

// Each trade's sums (regression_sums), of a part's components: grid (trades, part slots).
template <sums_part P>
__global__ void regression_totals_kernel(const calibration_start* __restrict__ starts, int num_trades,
                                         std::int64_t total_blocks, const regression_sums* __restrict__ block_sums,
                                         regression_sums* __restrict__ trade_sums)
{
  int const i = static_cast<int>(blockIdx.x);
  int const c = part_component<P>(static_cast<int>(blockIdx.y));
  double const s = trade_total(starts, num_trades, total_blocks, reinterpret_cast<const double*>(block_sums) + c,
                               regression_doubles, i, static_cast<int>(threadIdx.x));
  if (threadIdx.x == 0) reinterpret_cast<double*>(trade_sums + i)[c] = s;
}

// Each trade's fixed part of a run of steps: grid (trades, fixed slots, steps);
// fixed_totals[(step in run * trades + trade) * regression_fixed_doubles + slot].
__global__ void fixed_totals_kernel(const calibration_start* __restrict__ starts, int num_trades,
                                    std::int64_t total_blocks, const double* __restrict__ fixed_sums,
                                    double* __restrict__ fixed_totals)
{
  int const i = static_cast<int>(blockIdx.x);
  int const k = static_cast<int>(blockIdx.y);
  std::int64_t const z = blockIdx.z;
  double const s =
      trade_total(starts, num_trades, total_blocks, fixed_sums + z * total_blocks * regression_fixed_doubles + k,
                  regression_fixed_doubles, i, static_cast<int>(threadIdx.x));
  if (threadIdx.x == 0) fixed_totals[(z * num_trades + i) * regression_fixed_doubles + k] = s;
}

// A warp a trade: with out.fixed_totals set, trade_sums holds the moving part only.
constexpr int solve_warps_per_block = 4;

__global__ void __launch_bounds__(solve_warps_per_block * 32)
    regression_solve_kernel(const exercise_trade* __restrict__ trades, int num_trades, int step,
                            const regression_sums* __restrict__ trade_sums, step_regression out)
{
  __shared__ double sums[solve_warps_per_block][regression_doubles];
  int const warp = static_cast<int>(threadIdx.x / 32);
  int const i = static_cast<int>(blockIdx.x) * solve_warps_per_block + warp;
  if (i >= num_trades) return;  // the whole warp
  const auto* const from = reinterpret_cast<const double*>(trade_sums + i);
  if (out.fixed_totals != nullptr) {
    double moving[regression_moving_doubles];
    for (int k = 0; k < regression_moving_doubles; ++k) moving[k] = from[part_component<sums_part::moving>(k)];
    regress_split_trade(trades[i], i, step, moving, fixed_part(out, i, num_trades, step), out, sums[warp]);
    return;
  }
  warp_store_regression(trades[i], step, trade_sums[i], out.coefficients, out.continuation_today + i);
}

}  // namespace

void launch_exercise_price_blocks(const exercise_ref& f, block_range blocks, moments* partials, launch_target at)
{
  if (f.num_trades == 0) return;
  if (at.sobol_directions != nullptr) detail::launch_exercise_price_blocks_quasi(f, blocks, partials, at);
  else launch_exercise_price_blocks_with<rng::device_normal_stream>(f, blocks, partials, at);
}

void launch_exercise_combination_blocks(const combination_ref& f, block_range blocks, moments* partials,
                                        std::uint32_t asset_counts, unsigned long long* unit_counters, launch_target at)
{
  if (f.num_trades == 0 || blocks.size() <= 0) return;
  MCPRICE_CUDA_TRY(cudaMemsetAsync(unit_counters, 0, sizeof(unsigned long long) * combination_kernels, at.stream));
  if (at.sobol_directions != nullptr) {
    detail::launch_exercise_combinations_quasi(f, blocks, partials, asset_counts, unit_counters, at);
  } else {
    launch_exercise_combinations_with<rng::device_normal_stream>(f, blocks, partials, asset_counts, unit_counters, at);
  }
}

void launch_calibration_paths(const calibration_ref& c, std::int64_t job_end, launch_target at)
{
  if (c.num_trades == 0) return;
  // The regression's paths are Philox's under either --rng (simulate_calibration_path).
  auto const launch = [&](auto kernel) {
    detail::launch_persistent_of(path_threads, kernel, "calibration_paths_kernel",
                                 (job_end - c.view.job_first_block) * path_parts, at.grid_blocks, at.stream, c.trades,
                                 c.starts, c.num_trades, c.tables, c.view, job_end, c.stop);
  };
  if (c.tables.jump_counts == nullptr) launch(calibration_paths_kernel<jumpless_stream<rng::device_normal_stream>>);
  else launch(calibration_paths_kernel<rng::device_normal_stream>);
}

void launch_calibration_backward(const calibration_ref& c, std::int64_t job_end, int from_step, int step,
                                 regression_sums* block_sums, bool moving_only, const folded_totals& fold,
                                 const step_regression& out, launch_target at)
{
  if (c.num_trades == 0) return;
  if (fold.blocks_done != nullptr && (!moving_only || c.num_trades > max_folded_trades)) {
    throw std::invalid_argument("launch_calibration_backward: folded regressions need moving-only sums of at most " +
                                std::to_string(max_folded_trades) + " trades");
  }
  auto* const kernel =
      moving_only ? calibration_backward_kernel<sums_part::moving> : calibration_backward_kernel<sums_part::all>;
  detail::launch_persistent(kernel, "calibration_backward_kernel", job_end - c.view.job_first_block, at.grid_blocks,
                            at.stream, c.trades, c.starts, c.num_trades, c.tables, c.view, job_end, from_step, step,
                            block_sums, fold, out, c.stop);
}

bool launch_calibration_steps(const calibration_ref& c, std::int64_t job_end, std::int64_t total_blocks, int steps,
                              regression_sums* block_sums, const step_regression& out, cudaStream_t stream)
{
  std::int64_t const blocks = job_end - c.view.job_first_block;
  if (c.num_trades == 0 || blocks <= 0 || out.fixed_totals == nullptr) return false;
  int device = 0;
  int sms = 0;
  int per_sm = 0;
  int cooperative = 0;
  constexpr int threads = policy::threads_per_block;
  MCPRICE_CUDA_TRY(cudaGetDevice(&device));
  MCPRICE_CUDA_TRY(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device));
  MCPRICE_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  MCPRICE_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, calibration_steps_kernel, threads, 0));
  // At most a block an SM: the 391 blocks of the large STAC-A2-style workload, three an SM,
  // measured 10% slower in one launch than a launch a step (docs/benchmarks.md).
  if (cooperative == 0 || blocks > std::min(sms, sms * per_sm)) return false;
  // The cooperative launch takes the kernel's arguments by address.
  const exercise_trade* trades = c.trades;
  const calibration_start* starts = c.starts;
  int num_trades = c.num_trades;
  exercise_tables tables = c.tables;
  calibration_view view = c.view;
  void* args[] = {&trades, &starts,     &num_trades,
                  &tables, &view,       &total_blocks,
                  &steps,  &block_sums, const_cast<step_regression*>(&out)};
  MCPRICE_CUDA_TRY(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(calibration_steps_kernel),
                                               dim3(static_cast<unsigned>(blocks)), dim3(threads), args, 0, stream));
  return true;
}

void launch_calibration_fixed(const calibration_ref& c, std::int64_t job_end, std::int64_t total_blocks, int step_begin,
                              int step_end, double* fixed_sums, double* fixed_totals, launch_target at)
{
  if (c.num_trades == 0 || step_end <= step_begin) return;
  std::int64_t const steps = step_end - step_begin;
  detail::launch_persistent(calibration_fixed_kernel, "calibration_fixed_kernel",
                            (job_end - c.view.job_first_block) * steps, at.grid_blocks, at.stream, c.trades, c.starts,
                            c.num_trades, c.tables, c.view, job_end, total_blocks, step_begin, step_end, fixed_sums,
                            c.stop);
  dim3 const grid(static_cast<unsigned>(c.num_trades), regression_fixed_doubles, static_cast<unsigned>(steps));
  fixed_totals_kernel<<<grid, layout::lanes_per_partial, 0, at.stream>>>(c.starts, c.num_trades, total_blocks,
                                                                         fixed_sums, fixed_totals);
  cudaError_t const status = cudaGetLastError();
  if (status != cudaSuccess) throw cuda_error(status, "fixed_totals_kernel", __FILE__, __LINE__);
}

void launch_regression_totals(const calibration_start* starts, int num_trades, std::int64_t total_blocks,
                              const regression_sums* block_sums, regression_sums* trade_sums, bool moving_only,
                              cudaStream_t stream)
{
  if (num_trades == 0) return;
  auto* const kernel =
      moving_only ? regression_totals_kernel<sums_part::moving> : regression_totals_kernel<sums_part::all>;
  dim3 const grid(static_cast<unsigned>(num_trades),
                  moving_only ? part_doubles<sums_part::moving> : part_doubles<sums_part::all>);
  kernel<<<grid, layout::lanes_per_partial, 0, stream>>>(starts, num_trades, total_blocks, block_sums, trade_sums);
  cudaError_t const status = cudaGetLastError();
  if (status != cudaSuccess) throw cuda_error(status, "regression_totals_kernel", __FILE__, __LINE__);
}

void launch_regression_solve(const exercise_trade* trades, int num_trades, int step, const regression_sums* trade_sums,
                             const step_regression& out, cudaStream_t stream)
{
  if (num_trades == 0) return;
  unsigned const blocks = (static_cast<unsigned>(num_trades) + solve_warps_per_block - 1) / solve_warps_per_block;
  regression_solve_kernel<<<blocks, solve_warps_per_block * 32, 0, stream>>>(trades, num_trades, step, trade_sums, out);
  cudaError_t const status = cudaGetLastError();
  if (status != cudaSuccess) throw cuda_error(status, "regression_solve_kernel", __FILE__, __LINE__);
}

}  // namespace mcprice::kernels
