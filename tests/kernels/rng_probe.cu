#include "mcprice/kernels/rng/device_normal_stream.cuh"
#include "mcprice/memory/cuda_error.hpp"
#include "mcprice/memory/device_buffer.hpp"
#include "rng_probe.hpp"

#include <curand_kernel.h>

namespace mcprice::testing {
namespace {

// What a probe reads: cuRAND's raw outputs, cuRAND's own normals, or the engine's stream (what
// every Philox float kernel draws; it starts at offset 0, so the case's offset is not used).
enum class probe { raw, curand_normal, engine_normal };

template <probe What, typename Out>
__global__ void probe_kernel(std::uint64_t key, const rng_probe_case* cases, int n, int draws, Out* out)
{
  int const i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if constexpr (What == probe::engine_normal) {
    rng::device_normal_stream s(key, cases[i].subsequence);
    for (int d = 0; d < draws; ++d) out[i * draws + d] = s.next4();
  } else {
    curandStatePhilox4_32_10_t st;
    curand_init(key, cases[i].subsequence, cases[i].offset, &st);
    for (int d = 0; d < draws; ++d) {
      if constexpr (What == probe::curand_normal) {
        float4 const z = curand_normal4(&st);
        out[i * draws + d] = {z.x, z.y, z.z, z.w};
      } else {
        uint4 const u = curand4(&st);
        out[i * draws + d] = {u.x, u.y, u.z, u.w};
      }
    }
  }
}

template <probe What, typename Out>
std::vector<Out> run_probe(std::uint64_t key, const std::vector<rng_probe_case>& cases, int draws)
{
  auto const n = static_cast<int>(cases.size());
  std::vector<Out> host(cases.size() * static_cast<std::size_t>(draws));
  device_buffer d_cases(sizeof(rng_probe_case) * cases.size());
  device_buffer d_out(sizeof(Out) * host.size());
  MCPRICE_CUDA_TRY(cudaMemcpy(d_cases.data(), cases.data(), d_cases.size(), cudaMemcpyHostToDevice));
  probe_kernel<What><<<(n + 127) / 128, 128>>>(key, d_cases.as<rng_probe_case>(), n, draws, d_out.as<Out>());
  MCPRICE_CHECK_LAUNCH("probe_kernel");
  MCPRICE_CUDA_TRY(cudaMemcpy(host.data(), d_out.data(), d_out.size(), cudaMemcpyDeviceToHost));
  return host;
}

}  // namespace

std::vector<rng::u32x4> device_curand4(std::uint64_t key, const std::vector<rng_probe_case>& cases, int draws)
{
  return run_probe<probe::raw, rng::u32x4>(key, cases, draws);
}

std::vector<rng::f32x4> device_curand_normal4(std::uint64_t key, const std::vector<rng_probe_case>& cases, int draws)
{
  return run_probe<probe::curand_normal, rng::f32x4>(key, cases, draws);
}

std::vector<rng::f32x4> device_engine_normal4(std::uint64_t key, const std::vector<rng_probe_case>& cases, int draws)
{
  return run_probe<probe::engine_normal, rng::f32x4>(key, cases, draws);
}

}  // namespace mcprice::testing
