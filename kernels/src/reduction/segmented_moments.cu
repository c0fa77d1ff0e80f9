#include "mcprice/kernels/launch/basket_greeks_launcher.hpp"
#include "mcprice/kernels/launch/european_greeks_launcher.hpp"
#include "mcprice/kernels/launch/european_launcher.hpp"
#include "mcprice/kernels/launch/path_greeks_launcher.hpp"
#include "mcprice/memory/cuda_error.hpp"

#include <cub/device/device_segmented_reduce.cuh>
#include <thrust/iterator/transform_iterator.h>

namespace mcprice::kernels {
namespace {

// A block offset relative to the job's first block, in partials.
struct partial_offset {
  std::int64_t base;
  __host__ __device__ std::int64_t operator()(std::int64_t x) const { return (x - base) * layout::partials_per_block; }
};

// CUB's segmented reduction reads each segment with one thread block in a fixed pattern (no
// atomics), so a segment's sum depends only on its blocks: the same on every run and whichever
// job the segment fell in, on the same GPU model.
// A segment of blocks [first, end) holds partials [first, end) x partials_per_block.
template <typename Sums, typename Add>
void segmented_sum(void* temp, std::size_t& temp_bytes, const Sums* partials, const std::int64_t* offsets,
                   std::int64_t base, int num_segments, Sums* out, cudaStream_t stream)
{
  auto const begin = thrust::make_transform_iterator(offsets, partial_offset{base});
  MCPRICE_CUDA_TRY(cub::DeviceSegmentedReduce::Reduce(temp, temp_bytes, partials, out, num_segments, begin, begin + 1,
                                                      Add{}, Sums{}, stream));
}

}  // namespace

void segmented_moments_sum(void* temp, std::size_t& temp_bytes, const moments* partials, const std::int64_t* offsets,
                           std::int64_t base, int num_segments, moments* out, cudaStream_t stream)
{
  segmented_sum<moments, moments_sum>(temp, temp_bytes, partials, offsets, base, num_segments, out, stream);
}

void segmented_greek_sum(void* temp, std::size_t& temp_bytes, const greek_moments* partials,
                         const std::int64_t* offsets, std::int64_t base, int num_segments, greek_moments* out,
                         cudaStream_t stream)
{
  segmented_sum<greek_moments, sums_add>(temp, temp_bytes, partials, offsets, base, num_segments, out, stream);
}

void segmented_path_greek_sum(void* temp, std::size_t& temp_bytes, const path_greek_moments* partials,
                              const std::int64_t* offsets, std::int64_t base, int num_segments, path_greek_moments* out,
                              cudaStream_t stream)
{
  segmented_sum<path_greek_moments, sums_add>(temp, temp_bytes, partials, offsets, base, num_segments, out, stream);
}

void segmented_basket_greek_sum(void* temp, std::size_t& temp_bytes, const basket_greek_moments* partials,
                                const std::int64_t* offsets, std::int64_t base, int num_segments,
                                basket_greek_moments* out, cudaStream_t stream)
{
  segmented_sum<basket_greek_moments, sums_add>(temp, temp_bytes, partials, offsets, base, num_segments, out, stream);
}

}  // namespace mcprice::kernels
