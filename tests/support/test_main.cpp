// One main for both Catch2 generations. GPU suites are built with MCPRICE_GPU_SUITE and exit
// with CTest's skip code (77) when the machine has no usable GPU.
#if __has_include(<catch2/catch_session.hpp>)
#include <catch2/catch_session.hpp>
#else
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#endif

#if defined(MCPRICE_GPU_SUITE)
#include "mcprice/memory/device_info.hpp"
#include <cstdio>
#endif

int main(int argc, char** argv)
{
#if defined(MCPRICE_GPU_SUITE)
  if (mcprice::usable_device_count() == 0) {
    std::puts("no usable CUDA GPU: GPU tests skipped");
    return 77;
  }
#endif
  return Catch::Session().run(argc, argv);
}
