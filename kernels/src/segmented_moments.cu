#include "mcprice/kernels/european_launcher.hpp"
#include "mcprice/memory/cuda_error.hpp"

#include <cub/device/device_segmented_reduce.cuh>

namespace mcprice::kernels {

// CUB's segmented reduction reads each segment with one thread block in a fixed pattern (no
// atomics), so the combined sums are the same on every run on the same GPU model.
void segmented_moments_sum(void* temp, std::size_t& temp_bytes, const moments* block_moments,
                           const std::int64_t* offsets, int num_segments, moments* out,
                           cudaStream_t stream)
{
  MCPRICE_CUDA_TRY(cub::DeviceSegmentedReduce::Reduce(temp, temp_bytes, block_moments, out,
                                                      num_segments, offsets, offsets + 1,
                                                      moments_sum{}, moments{}, stream));
}

}  // namespace mcprice::kernels
