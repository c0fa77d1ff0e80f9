#pragma once
// A test hook for fault injection (docs/reliability.md): make a scratch allocation fail as if the
// pool had run out, at a chosen point of a run, to prove that only the job that asked fails,
// that no other job's results move, and that nothing leaks. Process-wide; off unless armed.
#include <cstddef>

namespace mcprice::fault_injection {

// The n-th scratch allocation from now (n >= 1) throws out_of_memory; later ones succeed.
void fail_scratch_allocation(std::size_t n) noexcept;
// Disarms the hook.
void clear() noexcept;
// How many failures were injected since the process started.
[[nodiscard]] std::size_t injected() noexcept;

// Called by scratch_lease::allocate: true when this allocation is the one to fail.
[[nodiscard]] bool take_scratch_failure() noexcept;

}  // namespace mcprice::fault_injection
