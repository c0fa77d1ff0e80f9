#include "mcprice/memory/fault_injection.hpp"

#include <atomic>

namespace mcprice::fault_injection {
namespace {

std::atomic<std::size_t> countdown{0};  // 0: disarmed
std::atomic<std::size_t> failures{0};

}  // namespace

void fail_scratch_allocation(std::size_t n) noexcept { countdown.store(n); }
void clear() noexcept { countdown.store(0); }
std::size_t injected() noexcept { return failures.load(); }

bool take_scratch_failure() noexcept
{
  std::size_t left = countdown.load();
  while (left > 0) {
    // One thread takes each step of the countdown; the one that takes it to zero fails.
    if (countdown.compare_exchange_weak(left, left - 1)) {
      if (left == 1) {
        failures.fetch_add(1);
        return true;
      }
      return false;
    }
  }
  return false;
}

}  // namespace mcprice::fault_injection
