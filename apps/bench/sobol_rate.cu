// Normals a second from each of the engine's streams on one GPU, nothing stored: Philox
// (cuRAND's curand_normal4, as the pseudo-random kernels draw), Owen-scrambled Sobol points
// through the inverse normal (the terminal families' draw), and the same points bridged over a
// path (the path families' draw). Each kernel runs twice and the second is timed; ratios to the
// peer (shared/peers/roofline.cu's "philox normal4 only") are taken in the same device call
// (docs/benchmarks.md).
//
// Usage: mcprice-sobol-rate [points_log2 = 15] [dims = 64]
//   points_log2: points of one scrambling (a replicate); the point index's bits are the work of
//   a coordinate, so 2^15 is a 2^20-path run of 32 replicates.
#include "mcprice/kernels/layout/canonical_layout.hpp"
#include "mcprice/kernels/rng/device_normal_stream.cuh"
#include "mcprice/kernels/rng/device_sobol_stream.cuh"
#include "mcprice/kernels/rng/host_sobol_stream.hpp"
#include "mcprice/kernels/rng/sobol_terminal_lane.hpp"
#include "mcprice/memory/cuda_error.hpp"
#include "mcprice/memory/device_buffer.hpp"
#include "mcprice/memory/stream.hpp"

#include <cstdio>
#include <cstdlib>
#include <functional>

namespace {

using namespace mcprice;

constexpr int block_size = 256;

__device__ void keep(float a, float* sink)
{
  if (a == 12345.0F) *sink = a;  // never true in practice: keeps the arithmetic
}

__global__ void philox_normals(long long groups, int dims, float* sink)
{
  float a = 0.0F;
  for (long long g = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; g < groups;
       g += static_cast<long long>(gridDim.x) * blockDim.x) {
    rng::device_normal_stream s(42, static_cast<std::uint64_t>(g));
    for (int d = 0; d < dims; d += 4) {
      auto const z = s.next4();
      a += z.x + z.y + z.z + z.w;
    }
  }
  keep(a, sink);
}

// A lane a point; its replicate's seed from the point's high bits, its coordinates from the low.
// ByBits: the coordinate as the XOR of the direction numbers of the index's set bits (a load a
// bit), instead of the engine's nibble tables (a load a nibble).
template <bool ByBits>
__global__ void sobol_normals(const std::uint32_t* table, long long points, int points_log2, int dims, float* sink)
{
  float a = 0.0F;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < points;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    auto const point = static_cast<std::uint32_t>(i & ((1LL << points_log2) - 1));
    std::uint32_t const seed = rng::hash32(static_cast<std::uint32_t>(i >> points_log2) + 1U);
    for (int d = 0; d < dims; ++d) {
      auto const dim = static_cast<std::uint32_t>(d);
      std::uint32_t const bits =
          ByBits ? rng::owen_scramble(rng::sobol_coordinate(table, dim, point), rng::dimension_seed(seed, dim))
                 : rng::scrambled_coordinate(table, seed, dim, point);
      a += normal_from_bits(bits);
    }
  }
  keep(a, sink);
}

// A lane a group of four points, `dims` dimensions: the Europeans' draw (next4 gives the four
// points' coordinates in the next dimension).
__global__ void sobol_terminal_normals(long long groups, int points_log2, int dims, float* sink)
{
  float a = 0.0F;
  for (long long g = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; g < groups;
       g += static_cast<long long>(gridDim.x) * blockDim.x) {
    std::uint32_t const seed = rng::hash32(static_cast<std::uint32_t>(g >> (points_log2 - 2)) + 1U);
    rng::device_sobol_stream<0> s(rng::sobol_key(seed, 0, 0), static_cast<std::uint64_t>(g & ((1LL << (points_log2 - 2)) - 1)));
    for (int d = 0; d < dims; ++d) {
      auto const z = s.next4();
      a += z.x + z.y + z.z + z.w;
    }
  }
  keep(a, sink);
}

// The Europeans' draw as their kernel makes it: a lane its canonical layout's eight groups of
// four points in dimension 0 (sobol_terminal_lane: the lane's walk, seed and low words once).
__global__ void sobol_european_normals(long long lanes, int points_log2, float* sink)
{
  constexpr int groups = layout::groups_per_lane(1);
  int const lanes_log2 = points_log2 - 5;  // 32 points a lane
  float a = 0.0F;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < lanes;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    std::uint32_t const seed = rng::hash32(static_cast<std::uint32_t>(i >> lanes_log2) + 1U);
    long long const in_replicate = i & ((1LL << lanes_log2) - 1);
    std::int64_t const block = in_replicate / layout::lanes_per_block;
    int const lane = static_cast<int>(in_replicate % layout::lanes_per_block);
    rng::sobol_terminal_lane<rng::device_sobol_directions, float> const draw(
        rng::sobol_key(seed, 0, 0), static_cast<std::uint64_t>(layout::group_index(block, 0, lane, 1)));
    for (int g = 0; g < groups; ++g) {
      float z[4];
      draw.next4(static_cast<std::uint64_t>(layout::group_index(block, g, lane, 1)), z);
      a += z[0] + z[1] + z[2] + z[3];
    }
  }
  keep(a, sink);
}

// A lane a path of `dims` steps: the bridged normals the path families draw.
__global__ void sobol_path_normals(long long points, int points_log2, int dims, float* sink)
{
  float a = 0.0F;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < points;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    std::uint32_t const seed = rng::hash32(static_cast<std::uint32_t>(i >> points_log2) + 1U);
    rng::device_sobol_stream<1> s(rng::sobol_key(seed, dims, 1), static_cast<std::uint64_t>(i & ((1LL << points_log2) - 1)));
    for (int d = 0; d < dims; d += 4) {
      auto const z = s.next4();
      a += z.x + z.y + z.z + z.w;
    }
  }
  keep(a, sink);
}

double seconds_of(mcprice::stream& s, const std::function<void()>& launch)
{
  cudaEvent_t start{};
  cudaEvent_t stop{};
  MCPRICE_CUDA_TRY(cudaEventCreate(&start));
  MCPRICE_CUDA_TRY(cudaEventCreate(&stop));
  float ms = 0.0F;
  for (int rep = 0; rep < 2; ++rep) {
    MCPRICE_CUDA_TRY(cudaEventRecord(start, s.value()));
    launch();
    MCPRICE_CUDA_TRY(cudaGetLastError());
    MCPRICE_CUDA_TRY(cudaEventRecord(stop, s.value()));
    MCPRICE_CUDA_TRY(cudaEventSynchronize(stop));
    MCPRICE_CUDA_TRY(cudaEventElapsedTime(&ms, start, stop));
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return ms / 1e3;
}

}  // namespace

int main(int argc, char** argv)
{
  int const points_log2 = argc > 1 ? std::atoi(argv[1]) : 15;
  int const dims = argc > 2 ? std::atoi(argv[2]) : 64;
  if (points_log2 < 5 || points_log2 > 31 || dims < 4 || dims % 4 != 0 || dims > 4096) {
    std::fprintf(stderr, "usage: mcprice-sobol-rate [points_log2 in 5..31] [dims: a multiple of 4, up to 4096]\n");
    return 1;
  }
  try {
    cudaDeviceProp p{};
    MCPRICE_CUDA_TRY(cudaGetDeviceProperties(&p, 0));
    mcprice::stream s;
    auto upload = [&](const std::uint32_t* host, std::size_t words) {
      mcprice::device_buffer table(words * sizeof(std::uint32_t));
      MCPRICE_CUDA_TRY(cudaMemcpyAsync(table.data(), host, words * sizeof(std::uint32_t), cudaMemcpyHostToDevice, s.value()));
      return table;
    };
    auto const directions = upload(rng::sobol_direction_table(), std::size_t{rng::sobol_dimensions} * rng::sobol_direction_bits);
    auto const nibbles = upload(rng::sobol_nibble_table(), std::size_t{rng::sobol_dimensions} * rng::sobol_nibble_words);
    auto const* by_bits = static_cast<const std::uint32_t*>(directions.data());
    auto const* by_nibbles = static_cast<const std::uint32_t*>(nibbles.data());
    MCPRICE_CUDA_TRY(rng::bind_sobol_directions(by_nibbles, s.value()));
    mcprice::device_buffer sink(sizeof(float));
    auto* out = static_cast<float*>(sink.data());
    int const blocks = p.multiProcessorCount * 16;
    long long const normals = 1LL << 30;
    long long const lanes = normals / dims;
    double const philox = seconds_of(s, [&] { philox_normals<<<blocks, block_size, 0, s.value()>>>(lanes, dims, out); });
    double const bits = seconds_of(
        s, [&] { sobol_normals<true><<<blocks, block_size, 0, s.value()>>>(by_bits, lanes, points_log2, dims, out); });
    double const sobol = seconds_of(s, [&] {
      sobol_normals<false><<<blocks, block_size, 0, s.value()>>>(by_nibbles, lanes, points_log2, dims, out);
    });
    double const terminal = seconds_of(s, [&] {
      sobol_terminal_normals<<<blocks, block_size, 0, s.value()>>>(lanes / 4, points_log2, dims, out);
    });
    double const european = seconds_of(s, [&] {
      sobol_european_normals<<<blocks, block_size, 0, s.value()>>>(normals / 32, points_log2, out);
    });
    double const path =
        seconds_of(s, [&] { sobol_path_normals<<<blocks, block_size, 0, s.value()>>>(lanes, points_log2, dims, out); });
    auto rate = [&](double sec) { return static_cast<double>(normals) / sec / 1e9; };
    std::printf("device %s; %lld normals a kernel, %d dimensions a point, 2^%d points a scrambling\n", p.name,
                normals, dims, points_log2);
    std::printf("philox curand_normal4:                         %8.1f G normals/s\n", rate(philox));
    std::printf("sobol (a load a bit) + owen + inverse:         %8.1f G normals/s  (%.2fx philox)\n", rate(bits),
                philox / bits);
    std::printf("sobol (a load a nibble) + owen + inverse:      %8.1f G normals/s  (%.2fx philox)\n", rate(sobol),
                philox / sobol);
    std::printf("sobol stream, four points a lane (Europeans):  %8.1f G normals/s  (%.2fx philox)\n",
                rate(terminal), philox / terminal);
    std::printf("sobol, the Europeans' lane (8 groups of 4):    %8.1f G normals/s  (%.2fx philox)\n",
                rate(european), philox / european);
    std::printf("sobol bridged path (1 factor):                 %8.1f G normals/s  (%.2fx philox)\n", rate(path),
                philox / path);
    s.synchronize();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mcprice-sobol-rate: %s\n", e.what());
    return 1;
  }
  return 0;
}
