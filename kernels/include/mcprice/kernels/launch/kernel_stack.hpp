#pragma once
// The context's local memory, sized before any kernel runs. A launch whose kernel needs more
// local memory a thread than the context holds waits for every running kernel to end and holds
// the context meanwhile (docs/reliability.md), so an engine raises the stack limit when it is
// built, for every kernel its options may launch. The bytes each group needs are measured, one
// line per value in kernel_stack.cpp, and checked by the GPU test "every kernel fits the local
// memory reserved for its group", so nothing has to load to size the limit. An engine still
// loads every kernel at construction by default (load_kernel_modules): a kernel loaded at its
// first launch beside running kernels waited for them too, 3 s on an H100 with Greek jobs
// running (docs/reliability.md). engine_options::preload_kernels = false takes that risk for a
// construction of milliseconds.
#include <cstddef>

namespace mcprice::kernels {

// The most local memory a thread that any kernel of `groups` (kernel_group bits) takes.
[[nodiscard]] std::size_t reserved_local_bytes(unsigned groups) noexcept;

// Raises the current device's stack limit to `local_bytes` plus the default 1 KiB (it never
// lowers it). The bytes are the driver's, per resident thread: what the first launch of such a
// kernel would take anyway. Throws (cuda_error, or std::runtime_error where the reservation would
// take more than a quarter of the device's free memory).
void reserve_local_memory(std::size_t local_bytes);

// Loads every kernel of `groups` (as load_kernel_modules does, without reserving) and returns
// the most local memory a thread that one of them takes, as the driver reports it; 0 where the
// driver cannot enumerate modules (before CUDA 12.4). For the test that checks the table.
[[nodiscard]] std::size_t loaded_local_bytes(unsigned groups);

}  // namespace mcprice::kernels
