#include "mcprice/kernels/launch/reduction.hpp"
#include "mcprice/memory/cuda_error.hpp"

#include <cub/device/device_segmented_reduce.cuh>
#include <thrust/iterator/transform_iterator.h>

#include "mcprice/kernels/launch/kernel_module.cuh"
#include <type_traits>

namespace mcprice::kernels {

MCPRICE_KERNEL_MODULE(kernel_group::reductions)
namespace {

// A block offset relative to the job's first block, in partials.
struct partial_offset {
  std::int64_t base;
  __host__ __device__ std::int64_t operator()(std::int64_t x) const { return (x - base) * layout::partials_per_block; }
};

// The operator that adds two partials: moments' own (its fields in a fixed order), the Greek
// sums' element-wise.
template <typename Sums>
using add_of = std::conditional_t<std::is_same_v<Sums, moments>, moments_sum, sums_add>;

}  // namespace

// CUB's segmented reduction reads each segment with one thread block in a fixed pattern (no
// atomics), so a segment's sum depends only on its blocks: the same on every run and whichever
// job the segment fell in, on the same GPU model.
// A segment of blocks [first, end) holds partials [first, end) x partials_per_block.
template <typename Sums>
void segmented_sum(void* temp, std::size_t& temp_bytes, const Sums* partials, segment_offsets segments, Sums* out,
                   cudaStream_t stream)
{
  auto const begin = thrust::make_transform_iterator(segments.offsets, partial_offset{segments.base});
  MCPRICE_CUDA_TRY(cub::DeviceSegmentedReduce::Reduce(temp, temp_bytes, partials, out, segments.count, begin, begin + 1,
                                                      add_of<Sums>{}, Sums{}, stream));
}

template void segmented_sum(void*, std::size_t&, const moments*, segment_offsets, moments*, cudaStream_t);
template void segmented_sum(void*, std::size_t&, const greek_moments*, segment_offsets, greek_moments*, cudaStream_t);
template void segmented_sum(void*, std::size_t&, const path_greek_moments*, segment_offsets, path_greek_moments*,
                            cudaStream_t);
template void segmented_sum(void*, std::size_t&, const basket_greek_moments*, segment_offsets, basket_greek_moments*,
                            cudaStream_t);

}  // namespace mcprice::kernels
