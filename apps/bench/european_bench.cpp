// The European workload of NVIDIA's MonteCarloMultiGPU sample: 8192 calls, 262,144 paths each,
// S in [5,50], K in [10,25], T in [1,5], r = 0.06, sigma = 0.10. Reports the kernel-only rate
// (device events around launch + reduction) and the engine's end-to-end rate, and checks every
// price against Black-Scholes. A benchmark app, not a test: run it on the GPU machine.
#include "bench_devices.hpp"
#include "mcprice/black_scholes.hpp"
#include "mcprice/engine.hpp"
#include "mcprice/kernels/launch/european.hpp"
#include "mcprice/kernels/launch/reduction.hpp"
#include "mcprice/kernels/rng/trade_key.hpp"
#include "mcprice/memory/cuda_error.hpp"
#include "mcprice/memory/device_buffer.hpp"
#include "mcprice/memory/device_info.hpp"
#include "mcprice/memory/event.hpp"
#include "mcprice/memory/stream.hpp"
#include "synthetic_book.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace mcprice::bench;

double kernel_only_ms(const std::vector<option_spec>& opts, std::int64_t paths, bool antithetic, int reps, int slices)
{
  using namespace mcprice;
  std::vector<european_gbm_trade> trades(opts.size());
  std::vector<std::int64_t> offsets(opts.size() + 1);
  std::int64_t const samples = antithetic ? paths / 2 : paths;
  std::int64_t const per = layout::blocks_for(samples, european_normals_per_sample);
  for (std::size_t i = 0; i < opts.size(); ++i) {
    double const w = vol * vol * opts[i].t;
    trades[i] = {rng::trade_key(42, "opt" + std::to_string(i)),
                 samples,
                 static_cast<std::int64_t>(i) * per,
                 static_cast<float>(opts[i].s * std::exp(rate * opts[i].t - 0.5 * w)),
                 static_cast<float>(std::sqrt(w) / std::log(2.0)),
                 {terminal_payoff::call, static_cast<float>(opts[i].k), 1.0F},
                 static_cast<std::uint8_t>(antithetic ? 1 : 0)};
    offsets[i] = trades[i].first_block;
  }
  auto const n = static_cast<int>(opts.size());
  std::int64_t const blocks = per * n;
  offsets[opts.size()] = blocks;
  device_buffer d_trades(sizeof(european_gbm_trade) * opts.size());
  device_buffer d_offsets(sizeof(std::int64_t) * offsets.size());
  device_buffer d_blocks(sizeof(moments) * layout::partials_per_block * static_cast<std::size_t>(blocks));
  device_buffer d_sums(sizeof(moments) * opts.size());
  MCPRICE_CUDA_TRY(cudaMemcpy(d_trades.data(), trades.data(), d_trades.size(), cudaMemcpyHostToDevice));
  MCPRICE_CUDA_TRY(cudaMemcpy(d_offsets.data(), offsets.data(), d_offsets.size(), cudaMemcpyHostToDevice));
  std::size_t temp_bytes = 0;
  kernels::european_ref const book{d_trades.as<european_gbm_trade>(), n};
  kernels::segment_offsets const segments{d_offsets.as<std::int64_t>(), 0, n};
  kernels::segmented_sum(nullptr, temp_bytes, d_blocks.as<moments>(), segments, d_sums.as<moments>(), nullptr);
  device_buffer temp(temp_bytes);
  event start(event::timing::enabled);
  event stop(event::timing::enabled);
  std::vector<double> times;
  for (int r = 0; r < reps + 2; ++r) {
    start.record(stream_view{});
    kernels::launch_european_blocks(book, {0, blocks}, d_blocks.as<moments>(), {});
    kernels::segmented_sum(temp.data(), temp_bytes, d_blocks.as<moments>(), segments, d_sums.as<moments>(), nullptr);
    stop.record(stream_view{});
    stop.synchronize();
    if (r >= 2) times.push_back(event::elapsed_ms(start, stop));
  }
  if (slices > 1) {
    // The same blocks as `slices` launches round the engine's default 4 streams, with nothing
    // else in between: what cutting the work into jobs costs the GPU alone (launch tails).
    std::vector<stream> streams(4);
    std::vector<event> joined(streams.size());
    std::vector<double> sliced;
    for (int r = 0; r < reps + 2; ++r) {
      start.record(stream_view{});
      for (auto& st : streams) start.make_wait(st.view());
      for (int k = 0; k < slices; ++k) {
        std::int64_t const b0 = blocks * k / slices;
        std::int64_t const b1 = blocks * (k + 1) / slices;
        kernels::launch_european_blocks(book, {b0, b1}, d_blocks.as<moments>() + b0 * layout::partials_per_block,
                                        {streams[static_cast<std::size_t>(k) % streams.size()].view().value(), 0});
      }
      for (std::size_t i = 0; i < streams.size(); ++i) {
        joined[i].record(streams[i].view());
        joined[i].make_wait(stream_view{});
      }
      stop.record(stream_view{});
      stop.synchronize();
      if (r >= 2) sliced.push_back(event::elapsed_ms(start, stop));
    }
    std::printf(
        "{\"bench\":\"european_kernel_slices\",\"antithetic\":%s,\"slices\":%d,\"streams\":4,"
        "\"sliced_ms\":%.4f,\"one_launch_with_reduction_ms\":%.4f}\n",
        antithetic ? "true" : "false", slices, median(sliced), median(times));
  }
  return median(times);
}

struct accuracy {
  double worst_z{0.0};
  double aggregate_z{0.0};
  int zero_hit{0};
};

// Deep out-of-the-money options can see no paths finish in the money (price 0, std error 0):
// they are counted apart. The aggregate z (sum of errors over the root sum of variances) is
// the bias check; single z-scores of near-worthless options are rare-event noise.
accuracy check(const std::vector<option_spec>& opts, const mcprice::pricing_run& run)
{
  accuracy a;
  double sum_diff = 0.0;
  double sum_var = 0.0;
  for (std::size_t i = 0; i < opts.size(); ++i) {
    auto const& o = opts[i];
    double const df = std::exp(-rate * o.t);
    double const ref = mcprice::black_scholes::call({o.s / df, o.k, vol * vol * o.t, df});
    auto const& r = run.results[i];
    sum_diff += r.price - ref;  // zero-hit options too: leaving them out would bias the sum
    if (r.std_error == 0.0) {
      ++a.zero_hit;
      continue;
    }
    a.worst_z = std::max(a.worst_z, std::abs(r.price - ref) / r.std_error);
    sum_var += r.std_error * r.std_error;
  }
  a.aggregate_z = sum_diff / std::sqrt(sum_var);
  return a;
}

// The engine call, median of reps after one warm-up: price() returning fresh results each
// call, and (reused_ms) price_range() into the caller's results vector kept between calls, as a
// risk platform pricing the same book repeatedly would (same bits; no first touch of new rows).
double engine_ms(const std::vector<option_spec>& opts, std::int64_t paths, bool cpu, bool antithetic, int reps,
                 mcprice::pricing_run& run, mcprice::engine_options eo, double& reused_ms)
{
  auto const book = book_for(opts, 0, opts.size(), paths);
  eo.backend = cpu ? mcprice::backend_choice::cpu : mcprice::backend_choice::gpu;
  eo.antithetic = antithetic;
  mcprice::engine const eng(market_for(opts), eo);
  std::vector<double> wall;
  std::vector<double> reused;
  std::vector<mcprice::trade_result> kept;
  bool const can_reuse = eng.device_count() == 1;
  for (int r = 0; r < reps + 1; ++r) {
    auto const t0 = std::chrono::steady_clock::now();
    mcprice::pricing_run fresh = eng.price(book);
    auto const t1 = std::chrono::steady_clock::now();
    // The last call's results are freed outside the timing: the caller's work, not the engine's
    // (a 2 MiB vector given back to the system; tens of microseconds on the GPU host).
    run = std::move(fresh);
    auto const t2 = std::chrono::steady_clock::now();
    if (can_reuse) (void)eng.price_range(book, 0, book.trades.size(), kept);
    auto const t3 = std::chrono::steady_clock::now();
    if (r >= 1 || reps == 0) {
      wall.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
      reused.push_back(std::chrono::duration<double, std::milli>(t3 - t2).count());
    }
  }
  if (can_reuse && (kept.size() != run.results.size() ||
                    std::memcmp(&kept.back().price, &run.results.back().price, sizeof(double)) != 0)) {
    std::fprintf(stderr, "mcprice-bench: price_range gave other bits than price\n");
    std::exit(1);
  }
  reused_ms = can_reuse ? median(reused) : 0.0;
  return median(wall);
}

// A traced call's spans as one JSON line, with what they add up to: the first and last GPU
// job, how much of the span between them the GPU had a job in flight, and the host's phases.
void print_timeline(const mcprice::pricing_run& run, bool antithetic)
{
  auto const& spans = run.summary.timeline;
  std::vector<std::pair<double, double>> gpu;
  for (auto const& s : spans) {
    if (s.device) gpu.emplace_back(s.begin_seconds, s.end_seconds);
  }
  std::sort(gpu.begin(), gpu.end());
  double busy = 0.0;
  double reach = gpu.empty() ? 0.0 : gpu.front().first;
  for (auto const& [b, e] : gpu) {
    double const from = std::max(b, reach);
    if (e > from) busy += e - from;
    reach = std::max(reach, e);
  }
  double const first = gpu.empty() ? 0.0 : gpu.front().first;
  std::printf(
      "{\"bench\":\"european_timeline\",\"antithetic\":%s,\"wall_us\":%.1f,\"gpu_first_us\":%.1f,"
      "\"gpu_last_us\":%.1f,\"gpu_busy_us\":%.1f,\"spans\":[",
      antithetic ? "true" : "false", run.summary.wall_seconds * 1e6, first * 1e6, reach * 1e6, busy * 1e6);
  for (std::size_t i = 0; i < spans.size(); ++i) {
    auto const& s = spans[i];
    std::printf("%s[\"%s\",%zu,%zu,%.1f,%.1f,%zu]", i > 0 ? "," : "", s.what.c_str(), s.chunk, s.index,
                s.begin_seconds * 1e6, s.end_seconds * 1e6, s.part);
  }
  std::printf("]}\n");
}

}  // namespace

// Usage: mcprice-bench [OPTIONS=8192] [PATHS=262144] [gpu|cpu] [STREAMS=0] [PIPELINE_CHUNK=128] [SLICES=0]
//                     [timeline]
// (STREAMS 0: the device's default; PIPELINE_CHUNK 0: one chunk; neither changes results;
// SLICES > 1 also times the kernel cut into that many launches over 4 streams; `timeline`
// traces the calls and prints the last one's spans)
int main(int argc, char** argv)
{
  int const n = argc > 1 ? std::atoi(argv[1]) : 8192;
  std::int64_t const paths = argc > 2 ? std::atoll(argv[2]) : 262144;
  bool const cpu = argc > 3 && std::string(argv[3]) == "cpu";
  mcprice::engine_options eo;
  if (argc > 4) eo.streams = std::atoi(argv[4]);
  if (argc > 5) eo.pipeline_chunk_trades = static_cast<std::size_t>(std::atoll(argv[5]));
  int const slices = argc > 6 ? std::atoi(argv[6]) : 0;
  eo.timeline = argc > 7 && std::string(argv[7]) == "timeline";
  mcprice::bench::devices_from_environment(eo);
  int const reps = cpu ? (std::getenv("MCPRICE_BENCH_REPS") ? std::atoi(std::getenv("MCPRICE_BENCH_REPS")) : 0) : 10;
  if (!cpu && mcprice::usable_device_count() == 0) {
    std::fprintf(stderr, "mcprice-bench: no GPU; run with 'N PATHS cpu' to measure the CPU backend\n");
    return 1;
  }
  std::string const device = cpu ? std::string("CPU") : mcprice::query_device(0).name;
  auto const opts = sample_options(n);
  double const total_paths = static_cast<double>(n) * static_cast<double>(paths);

  for (bool const antithetic : {false, true}) {
    double const kernel = cpu ? 0.0 : kernel_only_ms(opts, paths, antithetic, reps, slices);
    mcprice::pricing_run run;
    double reused = 0.0;
    double const end_to_end = engine_ms(opts, paths, cpu, antithetic, reps, run, eo, reused);
    accuracy const acc = check(opts, run);
    std::printf(
        "{\"bench\":\"european_montecarlomultigpu\",\"device\":\"%s\",\"antithetic\":%s,\"options\":%d,"
        "\"paths_per_option\":%lld,\"kernel_ms\":%.4f,\"kernel_options_per_s\":%.4g,"
        "\"kernel_paths_per_s\":%.4g,\"engine_ms\":%.4f,\"engine_paths_per_s\":%.4g,"
        "\"streams\":%d,\"pipeline_chunk\":%zu,\"engine_prepare_ms\":%.3f,\"engine_price_ms\":%.3f,"
        "\"engine_results_ms\":%.3f,\"jobs\":%zu,\"chunks\":%zu,"
        "\"worst_abs_z\":%.2f,\"aggregate_z\":%.3f,\"options_with_no_paths_in_the_money\":%d,"
        "\"engine_device\":\"%s\",\"results_digest\":\"%016llx\",\"engine_reused_results_ms\":%.4f}\n",
        device.c_str(), antithetic ? "true" : "false", n, static_cast<long long>(paths), kernel,
        kernel > 0 ? n / (kernel * 1e-3) : 0.0, kernel > 0 ? total_paths / (kernel * 1e-3) : 0.0, end_to_end,
        total_paths / (end_to_end * 1e-3), eo.streams, eo.pipeline_chunk_trades, run.summary.prepare_seconds * 1e3,
        run.summary.price_seconds * 1e3, run.summary.results_seconds * 1e3, run.summary.jobs, run.summary.chunks,
        acc.worst_z, acc.aggregate_z, acc.zero_hit, run.summary.device_name.c_str(),
        static_cast<unsigned long long>(mcprice::bench::results_digest(run)), reused);
    if (eo.timeline) print_timeline(run, antithetic);
    std::fflush(stdout);
  }
  return 0;
}
