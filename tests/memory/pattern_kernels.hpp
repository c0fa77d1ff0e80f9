#pragma once
// Test kernels that make a reuse race visible: a fast writer of a tagged pattern and a slow,
// single-block checker that counts words that no longer carry its tag.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace mcprice::testing {

void write_pattern(std::uint32_t* p, std::size_t n, std::uint32_t tag, cudaStream_t s);
// Reads the buffer `passes` times with one block, so it runs long enough to overlap a racer.
void check_pattern(const std::uint32_t* p, std::size_t n, std::uint32_t tag, int passes, unsigned long long* mismatches,
                   cudaStream_t s);

}  // namespace mcprice::testing
