#include "mcprice/term_structure.hpp"
#include "catch.hpp"

#include <cmath>

using namespace mcprice;

TEST_CASE("zero rates interpolate linearly and stay flat beyond the pillars")
{
  rate_curve const c({0.5, 1.0, 2.0}, {0.04, 0.042, 0.046});
  CHECK(c.zero_rate(0.1) == 0.04);
  CHECK(std::abs(c.zero_rate(0.75) - 0.041) < 1e-15);
  CHECK(std::abs(c.zero_rate(1.5) - 0.044) < 1e-15);
  CHECK(c.zero_rate(10.0) == 0.046);
  CHECK(std::abs(c.discount(2.0) - std::exp(-0.046 * 2.0)) < 1e-15);
  CHECK(rate_curve::flat(0.05).discount(1.0) == std::exp(-0.05));
}

TEST_CASE("vols interpolate in total variance, flat vol outside the pillars")
{
  vol_curve const v({0.5, 1.0, 2.0}, {0.25, 0.22, 0.21});
  CHECK(std::abs(v.vol(0.25) - 0.25) < 1e-15);
  CHECK(std::abs(v.total_variance(1.0) - 0.22 * 0.22) < 1e-15);
  double const w = 0.5 * (0.22 * 0.22 * 1.0) + 0.5 * (0.21 * 0.21 * 2.0);
  CHECK(std::abs(v.total_variance(1.5) - w) < 1e-15);
  CHECK(std::abs(v.vol(4.0) - 0.21) < 1e-15);
  CHECK(v.first_decreasing_pillar() == -1);
  CHECK(vol_curve({1.0, 2.0}, {0.3, 0.2}).first_decreasing_pillar() == 1);
}
