#pragma once
// Random least-squares fits as the calibration forms them: float basis values, their products
// and cash-flow products summed in double (regression_sums), with the design kept for an oracle.
#include "mcprice/kernels/exercise/early_exercise.hpp"

#include <array>
#include <cmath>
#include <random>
#include <vector>

namespace mcprice::testing {

struct regression_case {
  int basis{1};
  std::vector<std::array<double, max_exercise_basis>> phi;  // a row per path in the money
  std::vector<double> y;                                    // its cash flow
  regression_sums sums{};
};

// `basis` functions of two state variables in [0.5, 1.5] (1, then monomials up to degree 3, as
// the engine's bases), `rows` paths; collinear: the last function is a combination of two others
// (a rank-deficient fit); noise: the cash flow's noise around a random combination.
inline regression_case random_regression(std::mt19937_64& g, int basis, int rows, bool collinear, double noise = 0.1)
{
  std::uniform_real_distribution<double> u(0.5, 1.5);
  std::normal_distribution<double> z(0.0, 1.0);
  static constexpr int powers[max_exercise_basis][2] = {{0, 0}, {1, 0}, {0, 1}, {2, 0}, {1, 1},
                                                        {0, 2}, {3, 0}, {2, 1}, {1, 2}, {0, 3}};
  regression_case c;
  c.basis = basis;
  std::array<double, max_exercise_basis> truth{};
  for (int i = 0; i < basis; ++i) truth[static_cast<std::size_t>(i)] = z(g);
  for (int r = 0; r < rows; ++r) {
    double const a = u(g);
    double const b = u(g);
    std::array<double, max_exercise_basis> phi{};
    for (int i = 0; i < basis; ++i) {
      // Rounded to float, as the kernels' basis values are.
      phi[static_cast<std::size_t>(i)] = static_cast<float>(std::pow(a, powers[i][0]) * std::pow(b, powers[i][1]));
    }
    if (collinear && basis >= 3) phi[static_cast<std::size_t>(basis - 1)] = static_cast<float>(phi[1] + 2.0 * phi[2]);
    double y = noise * z(g);
    for (int i = 0; i < basis; ++i) y += truth[static_cast<std::size_t>(i)] * phi[static_cast<std::size_t>(i)];
    y = static_cast<float>(y);
    int e = 0;
    for (int i = 0; i < basis; ++i) {
      for (int j = i; j < basis; ++j)
        c.sums.xx[e++] += phi[static_cast<std::size_t>(i)] * phi[static_cast<std::size_t>(j)];
      c.sums.xy[i] += phi[static_cast<std::size_t>(i)] * y;
    }
    c.sums.in_the_money += 1.0;
    c.sums.total += y;
    c.sums.total_sq += y * y;
    c.phi.push_back(phi);
    c.y.push_back(y);
  }
  return c;
}

// A mixed set: well-posed fits of every basis size, rank-deficient ones, too few paths for the
// basis (a constant fit) and none in the money.
inline std::vector<regression_case> regression_cases(std::uint64_t seed, int count)
{
  std::mt19937_64 g(seed);
  std::vector<regression_case> out;
  for (int k = 0; k < count; ++k) {
    int const basis = 1 + k % max_exercise_basis;
    switch (k % 7) {
      case 5:
        out.push_back(random_regression(g, basis, basis, false));
        break;  // < 2 paths a function
      case 6:
        out.push_back(k % 14 == 6 ? regression_case{basis, {}, {}, {}} : random_regression(g, basis, 300, true));
        break;
      default:
        out.push_back(random_regression(g, basis, 40 + 37 * (k % 11), false));
        break;
    }
  }
  return out;
}

}  // namespace mcprice::testing
