#include "mcprice/kernels/launch/kernel_selection.hpp"

#include "catch.hpp"

using namespace mcprice::kernels;

// Names as the driver reports them, demangled (nvcc 13.0, sm_90).
TEST_CASE("a kernel's generator and precision are read from its template arguments", "[kernels]")
{
  auto const heston_sobol = traits_of_kernel(
      "void mcprice::kernels::(anonymous namespace)::heston_blocks_kernel<double, false, "
      "mcprice::rng::sobol_stream<mcprice::rng::(anonymous namespace)::device_sobol_directions, 3, double> >"
      "(mcprice::basic_heston_trade<double> const*, int, mcprice::basic_heston_step<double> const*, "
      "mcprice::kernels::block_range, mcprice::kernels::moments*)");
  CHECK(heston_sobol.quasi);
  CHECK(heston_sobol.double_precision);

  // The parameters' double is not read: only the template arguments say what the paths are.
  auto const heston_philox = traits_of_kernel(
      "void mcprice::kernels::(anonymous namespace)::heston_blocks_kernel<float, true, "
      "mcprice::rng::device_normal_stream>(mcprice::basic_heston_trade<float> const*, int, double const*)");
  CHECK_FALSE(heston_philox.quasi);
  CHECK_FALSE(heston_philox.double_precision);

  auto const sobol_float = traits_of_kernel(
      "void mcprice::kernels::european_blocks_kernel<mcprice::rng::sobol_stream<mcprice::rng::(anonymous "
      "namespace)::device_sobol_directions, 0, float> >(mcprice::kernels::european_ref)");
  CHECK(sobol_float.quasi);
  CHECK_FALSE(sobol_float.double_precision);

  auto const two_phase = traits_of_kernel(
      "void mcprice::kernels::two_phase::sample_blocks_kernel<mcprice::basic_heston_trade<double>, double>(int)");
  CHECK_FALSE(two_phase.quasi);
  CHECK(two_phase.double_precision);

  auto const plain = traits_of_kernel("regression_solve_kernel(double*, int)");
  CHECK_FALSE(plain.quasi);
  CHECK_FALSE(plain.double_precision);

  // A parameter list found past the anonymous namespaces, and a name without one read whole.
  CHECK(traits_of_kernel("void (anonymous namespace)::k<mcprice::(anonymous namespace)::sobol_stream<double> >(float)")
            .double_precision);
  CHECK(traits_of_kernel("k<double>").double_precision);
  CHECK_FALSE(traits_of_kernel("k<float>(double)").double_precision);

  // Whole words only.
  CHECK_FALSE(traits_of_kernel("void double_barrier_kernel<sobol_streams>(int)").double_precision);
  CHECK_FALSE(traits_of_kernel("void double_barrier_kernel<sobol_streams>(int)").quasi);
}

TEST_CASE("a Philox engine leaves out the Sobol kernels and a float engine the double ones", "[kernels]")
{
  kernel_traits const sobol_double{true, true};
  kernel_traits const sobol_float{true, false};
  kernel_traits const philox_double{false, true};
  kernel_traits const philox_float{false, false};
  kernel_selection const philox_in_float{};
  kernel_selection const sobol_in_float{true, false};
  kernel_selection const philox_in_double{false, true};
  kernel_selection const sobol_in_double{true, true};

  CHECK(selected(philox_float, philox_in_float));
  CHECK_FALSE(selected(philox_double, philox_in_float));
  CHECK_FALSE(selected(sobol_float, philox_in_float));
  CHECK_FALSE(selected(sobol_double, philox_in_float));

  // A Sobol engine keeps the Philox kernels: its early exercise calibrates on Philox paths.
  CHECK(selected(sobol_float, sobol_in_float));
  CHECK(selected(philox_float, sobol_in_float));
  CHECK_FALSE(selected(sobol_double, sobol_in_float));

  // A double engine keeps the float kernels.
  CHECK(selected(philox_double, philox_in_double));
  CHECK(selected(philox_float, philox_in_double));
  CHECK_FALSE(selected(sobol_double, philox_in_double));

  for (auto const& t : {sobol_double, sobol_float, philox_double, philox_float}) CHECK(selected(t, sobol_in_double));
}

TEST_CASE("a module whose kernels all draw Sobol points, or all run double paths, is left out whole", "[kernels]")
{
  // What a module registers (MCPRICE_KERNEL_MODULE_OF) is read by the same rule as a kernel's
  // name: the module is loaded where the engine may launch a kernel of it.
  kernel_selection const philox_in_float{};
  kernel_selection const sobol_in_float{true, false};
  kernel_selection const philox_in_double{false, true};
  kernel_traits const every_variant{};

  CHECK_FALSE(selected(every_kernel_quasi, philox_in_float));
  CHECK_FALSE(selected(every_kernel_quasi, philox_in_double));
  CHECK(selected(every_kernel_quasi, sobol_in_float));
  CHECK_FALSE(selected(every_kernel_double, philox_in_float));
  CHECK_FALSE(selected(every_kernel_double, sobol_in_float));
  CHECK(selected(every_kernel_double, philox_in_double));
  // A module of every variant is always loaded; its kernels are then chosen by name.
  for (auto const& s : {philox_in_float, sobol_in_float, philox_in_double}) CHECK(selected(every_variant, s));
}
