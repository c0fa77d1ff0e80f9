// The local memory an engine reserves for each kernel group when it is built, without loading
// a kernel (kernel_stack.cpp's table), against what the driver reports once the group's kernels
// are loaded. A kernel that outgrows its group's line fails here, before a first launch of it
// beside running kernels can hold the context (docs/reliability.md).
#include "catch.hpp"
#include "mcprice/kernels/launch/kernel_modules.hpp"
#include "mcprice/kernels/launch/kernel_stack.hpp"

#include <cstdio>

using mcprice::kernels::kernel_group;

TEST_CASE("GPU: every kernel fits the local memory reserved for its group", "[gpu]")
{
  struct named_group {
    kernel_group group;
    const char* name;
  };
  named_group const groups[] = {{kernel_group::prices, "prices"},
                                {kernel_group::greeks, "greeks"},
                                {kernel_group::two_phase, "two-phase"},
                                {kernel_group::exercise, "exercise"},
                                {kernel_group::reductions, "reductions"}};
  unsigned every = 0;
  for (auto const& g : groups) every |= static_cast<unsigned>(g.group);
  // Every module enumerated and loaded: a driver without the entry points would make the
  // comparisons below empty.
  REQUIRE(mcprice::kernels::load_kernel_modules(every) > 0);
  for (auto const& g : groups) {
    auto const bits = static_cast<unsigned>(g.group);
    std::size_t const loaded = mcprice::kernels::loaded_local_bytes(bits);
    std::size_t const reserved = mcprice::kernels::reserved_local_bytes(bits);
    std::printf("local memory a thread, %s kernels: %zu bytes at most, %zu reserved\n", g.name, loaded, reserved);
    INFO(g.name << " kernels take up to " << loaded << " bytes of local memory a thread; kernel_stack.cpp reserves "
                << reserved);
    CHECK(loaded <= reserved);
  }
}
