#pragma once
// Market data as read from the market file: one discount curve, the assets and their
// correlations. Immutable once built; the engine shares it between concurrent requests.
#include "mcprice/term_structure.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace mcprice {

enum class model_kind { gbm, heston, local_vol };

struct heston_params {
  double v0{0.0};
  double kappa{0.0};
  double theta{0.0};
  double xi{0.0};  // vol of variance
  double rho{0.0};
};

// Compound Poisson jumps of the log spot (Merton 1976; on a Heston asset, Bates 1996):
// `intensity` jumps a year, log jump sizes normal with mean `mean` and standard deviation `vol`,
// the drift compensated so that the forward is unchanged.
struct jump_params {
  double intensity{0.0};
  double mean{0.0};
  double vol{0.0};
};

// Black implied volatilities on a grid: vols[i][j] at expiries[i] (years, increasing) and
// strikes[j] (absolute, increasing). Read and checked for static arbitrage by the market reader
// (docs/models.md).
struct implied_vol_surface {
  std::vector<double> expiries;
  std::vector<double> strikes;
  std::vector<std::vector<double>> vols;
};

// Dupire local volatility sigma(t, x), x = ln(S / S_0), on uniform axes t_i = i time_step and
// x_j = x0 + j x_step (row-major by time), built from an asset's implied surface when its market
// is made (docs/models.md); flat beyond the axes.
struct local_vol_grid {
  double time_step{0.0};
  double x0{0.0};
  double x_step{0.0};
  int times{0};
  int points{0};
  std::vector<double> vols;
  // Where its values start in the market's table of grids, which an engine holds once (on a GPU,
  // in the market buffers): set by market_data's constructor, -1 before.
  std::int32_t first_pair{-1};
};

struct asset {
  std::string name;
  double spot{0.0};
  rate_curve dividend;
  vol_curve vol;
  model_kind model{model_kind::gbm};
  heston_params heston;
  std::optional<jump_params> jumps;  // gbm or heston assets
  implied_vol_surface surface;       // local_vol assets
  local_vol_grid local_vol;          // local_vol assets: from `surface` (market_data's constructor)
  // The sticky-strike Greeks' grids, built with `local_vol`: the surface held in strike with the
  // spot +1% and -1%, the implied vols +0.01 and -0.01, the discount rate +1e-3 and -1e-3.
  std::vector<local_vol_grid> local_vol_bumped;
};

class market_data {
 public:
  market_data() = default;
  market_data(rate_curve discount, std::vector<asset> assets,
              std::vector<double> correlation /* row-major n x n; empty = independent */, std::string source = {});

  [[nodiscard]] const rate_curve& discount() const noexcept { return discount_; }
  [[nodiscard]] const std::vector<asset>& assets() const noexcept { return assets_; }
  [[nodiscard]] std::optional<std::size_t> find(const std::string& name) const;
  [[nodiscard]] double correlation(std::size_t i, std::size_t j) const;
  // ln(F(t) / S_0) of an asset: (r(t) - q(t)) t from the discount and dividend curves.
  [[nodiscard]] double log_forward(const asset& a, double t) const;
  [[nodiscard]] const std::string& source() const noexcept { return source_; }

 private:
  rate_curve discount_;
  std::vector<asset> assets_;
  std::vector<double> correlation_;
  std::string source_;
  std::unordered_map<std::string, std::size_t> index_;  // name -> position in assets_
};

}  // namespace mcprice
